"""Secret masking: realistic secret shapes are masked by every entry point, ordinary log text is not.

Secret values are generated here, of the right shape but random, never real, and never committed:
the corpus files in `secrets_corpus/` are templates with `{{name}}` placeholders.
"""

from __future__ import annotations

import base64
import functools
import importlib.machinery
import importlib.util
import json
import pickle
import random
import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex.core.models import LogSource
from knowledge.engine import Engine
from knowledge.masking import Masker, SecretRule, load_rules, mask_token

hyperscan = pytest.importorskip("hyperscan")

CORPUS = Path(__file__).parent / "secrets_corpus"
HOOK = Path(__file__).resolve().parents[2] / "deploy" / "slurm" / "denpex-slurm-hook"
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"

MASKER = Masker.default()
PY_MASKER = Masker.default(use_hyperscan=False)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    """Random string starting with a letter and holding lower, upper and digit when it can."""
    while True:
        s = rng.choice(string.ascii_letters) + "".join(rng.choice(alphabet) for _ in range(n - 1))
        if n < 8 or alphabet == HEX or (re.search("[a-z]", s) and re.search("[A-Z0-9]", s)):
            return s


def _pem_lines(rng: random.Random) -> list[str]:
    return [_r(rng, B64, 64) for _ in range(25)] + [_r(rng, B64, 24) + "=="]


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(HEX) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _jwt(rng: random.Random) -> str:
    def enc(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    header = enc({"alg": "RS256", "typ": "JWT", "kid": _r(rng, HEX, 16)})
    payload = enc({"sub": "system:serviceaccount:ml:trainer", "iat": rng.randrange(10**9, 2 * 10**9)})
    return f"{header}.{payload}.{_r(rng, B64URL, 86)}"


def _sas(rng: random.Random) -> str:
    raw = _r(rng, B64, 43) + "="
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def _password(rng: random.Random) -> str:
    return _r(rng, ALNUM + "!@#$%^*-_+.?:~", rng.randrange(10, 24))


#: Generators of fake secret values, by the placeholder names the corpus uses.
GEN: dict[str, Callable[[random.Random], str]] = {
    "aws_key_id": lambda r: "AKIA" + "".join(r.choice(UPPER) for _ in range(16)),
    "aws_sts_key_id": lambda r: "ASIA" + "".join(r.choice(UPPER) for _ in range(16)),
    "aws_secret": lambda r: _r(r, B64, 40),
    "aws_session": lambda r: _r(r, B64, 356),
    "gcp_key_id": lambda r: _r(r, HEX, 40),
    "gcp_private_key_json": lambda r: (
        "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(_pem_lines(r)) + "\\n-----END PRIVATE KEY-----\\n"
    ),
    "gcp_oauth_secret": lambda r: "GOCSPX-" + _r(r, B64URL, 28),
    "gcp_api": lambda r: "AIza" + _r(r, B64URL, 35),
    "ya29": lambda r: "ya29." + _r(r, B64URL, 150),
    "pem_body": lambda r: "\n".join(_pem_lines(r)),
    "pem_body_default0": lambda r: "\n".join("[default0]:" + line for line in _pem_lines(r)),
    "azure_key": lambda r: _r(r, B64, 86) + "==",
    "sas_sig": _sas,
    "hf": lambda r: "hf_" + _r(r, ALNUM, 34),
    "wandb": lambda r: _r(r, HEX, 40),
    "slack_bot": lambda r: (
        f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{_r(r, ALNUM, 24)}"
    ),
    "slack_user": lambda r: (
        f"xoxp-{r.randrange(10**11, 10**12)}-{r.randrange(10**11, 10**12)}-"
        f"{r.randrange(10**12, 10**13)}-{_r(r, HEX, 32)}"
    ),
    "slack_app": lambda r: f"xapp-1-A{_r(r, UPPER, 10)}-{r.randrange(10**12, 10**13)}-{_r(r, HEX, 64)}",
    "slack_refresh": lambda r: "xoxe.xoxp-1-" + _r(r, ALNUM, 140),
    "slack_webhook_path": lambda r: f"T{_r(r, UPPER, 8)}/B{_r(r, UPPER, 10)}/{_r(r, ALNUM, 24)}",
    "gh_pat": lambda r: "ghp_" + _r(r, ALNUM, 36),
    "gh_fine": lambda r: f"github_pat_{_r(r, ALNUM, 22)}_{_r(r, ALNUM, 59)}",
    "gho": lambda r: "gho_" + _r(r, ALNUM, 36),
    "glpat": lambda r: "glpat-" + _r(r, B64URL, 20),
    "pypi": lambda r: "pypi-AgEIcHlwaS5vcmc" + _r(r, B64URL, 150),
    "npm": lambda r: "npm_" + _r(r, ALNUM, 36),
    "openai": lambda r: "sk-proj-" + _r(r, B64URL, 156),
    "openai_legacy": lambda r: "sk-" + _r(r, ALNUM, 48),
    "anthropic": lambda r: "sk-ant-api03-" + _r(r, B64URL, 93) + "AA",
    "jwt": _jwt,
    "password": _password,
    "url_password": lambda r: _r(r, ALNUM + "-_.~!*", 18),
    "bearer": lambda r: _r(r, B64URL, 40),
    "basic": lambda r: base64.b64encode(f"ci:{_password(r)}".encode()).decode(),
    "cookie": lambda r: f"session={_r(r, ALNUM, 32)}; csrftoken={_r(r, ALNUM, 32)}",
    # formats from gitleaks' rules and trufflehog's detectors (shapes only, random values)
    "token32": lambda r: _r(r, ALNUM, 32),
    "hex32": lambda r: _hex(r, 32),
    "hex64": lambda r: _hex(r, 64),
    "hex512": lambda r: _hex(r, 512),
    "cf_sig": lambda r: _r(r, B64URL, 120) + "__",
    "b64url43": lambda r: _r(r, B64URL, 43),
    "telegram": lambda r: f"{r.randrange(10**8, 10**10)}:AA{_r(r, B64URL, 33)}",
    "discord_id": lambda r: str(r.randrange(10**17, 10**19)),
    "discord_token": lambda r: _r(r, B64URL, 68),
    "teams_path": lambda r: f"{_uuid(r)}@{_uuid(r)}/IncomingWebhook/{_hex(r, 32)}/{_uuid(r)}",
    "nvapi": lambda r: "nvapi-" + _r(r, B64URL, 64),
    "akcp": lambda r: "AKCp" + _r(r, ALNUM, 69),
    "cmvmd": lambda r: "cmVmdGtuOjAxOj" + _r(r, ALNUM, 50),
    "hvs": lambda r: "hvs." + _r(r, B64URL, 90),
    "vault_s": lambda r: "s." + _r(r, ALNUM, 24),
    "hvb": lambda r: "hvb." + _r(r, B64URL, 138),
    "ado_pat": lambda r: "".join(r.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(52)),
    "ado_new": lambda r: _r(r, ALNUM, 52) + "JQQJ99" + _r(r, UPPER, 18) + "AZDO" + _r(r, ALNUM, 4),
    "b64_pem": lambda r: base64.b64encode(
        (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + "\n".join(_pem_lines(r))
            + "\n-----END RSA PRIVATE KEY-----\n"
        ).encode()
    ).decode(),
    "b64_sa": lambda r: base64.b64encode(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "ml-prod",
                "private_key_id": _r(r, HEX, 40),
                "private_key": "-----BEGIN PRIVATE KEY-----\n"
                + _r(r, B64, 64)
                + "\n-----END PRIVATE KEY-----\n",
            },
            indent=2,
        ).encode()
    ).decode(),
    "b64_docker": lambda r: base64.b64encode(
        json.dumps(
            {
                "auths": {
                    "nvcr.io": {"auth": base64.b64encode(f"$oauthtoken:{_r(r, ALNUM, 40)}".encode()).decode()}
                }
            }
        ).encode()
    ).decode(),
    "langsmith": lambda r: f"lsv2_pt_{_hex(r, 32)}_{_hex(r, 10)}",
    "databricks": lambda r: "dapi" + _hex(r, 32),
    "stripe": lambda r: "sk_live_" + _r(r, ALNUM, 48),
    "sendgrid": lambda r: f"SG.{_r(r, B64URL, 22)}.{_r(r, B64URL, 43)}",
    "azure_ad": lambda r: _r(r, ALNUM, 3) + str(r.randrange(10)) + "Q~" + _r(r, ALNUM + "_~.-", 34),
    "grafana": lambda r: "glsa_" + _r(r, ALNUM, 32) + "_" + _hex(r, 8),
    "tfc": lambda r: _r(r, ALNUM, 14) + ".atlasv1." + _r(r, B64URL, 67),
    "dop": lambda r: "dop_v1_" + _hex(r, 64),
    "pinecone": lambda r: "pcsk_" + _r(r, ALNUM, 60),
    "replicate": lambda r: "r8_" + _r(r, ALNUM, 37),
    "pplx": lambda r: "pplx-" + _r(r, ALNUM, 48),
    "xai": lambda r: "xai-" + _r(r, ALNUM, 80),
    "age": lambda r: (
        "AGE-SECRET-KEY-1" + "".join(r.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58))
    ),
    "heroku": lambda r: "HRKU-AA" + _r(r, B64URL, 58),
    "op_token": lambda r: "ops_eyJ" + _r(r, B64, 300),
}

#: (generator, label the reader sees, a realistic line with `{s}` where the secret goes)
CASES: list[tuple[str, str, str]] = [
    ("aws_key_id", "aws_access_key_id", "[2026-11-20 03:14:02,123] INFO boto3: AWS_ACCESS_KEY_ID={s}"),
    ("aws_sts_key_id", "aws_access_key_id", '{"AccessKeyId": "{s}", "Expiration": "2026-11-20T04:14:02Z"}'),
    ("aws_secret", "token", "AWS_SECRET_ACCESS_KEY={s}"),
    ("aws_secret", "token", "aws_secret_access_key = {s}"),
    ("aws_secret", "token", '    "SecretAccessKey": "{s}",'),
    ("aws_secret", "token", "aws configure set --aws-secret-access-key {s}"),
    ("aws_session", "token", "export AWS_SESSION_TOKEN={s}"),
    ("gcp_key_id", "token", '  "private_key_id": "{s}",'),
    ("gcp_private_key_json", "private_key", '  "private_key": "{s}",'),
    ("gcp_oauth_secret", "password", '{"installed": {"client_id": "1.apps", "client_secret": "{s}"}}'),
    ("gcp_api", "gcp_api_key", "GOOGLE_API_KEY={s}"),
    ("ya29", "gcp_oauth_token", "Authorization: Bearer {s}"),
    (
        "azure_key",
        "azure_account_key",
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;"
        "AccountName=mlckpts;AccountKey={s};EndpointSuffix=core.windows.net",
    ),
    (
        "azure_key",
        "azure_account_key",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={s}",
    ),
    (
        "sas_sig",
        "azure_sas_signature",
        "GET https://mlckpts.blob.core.windows.net/ckpt/step_1000.pt"
        "?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig={s}&x=1",
    ),
    ("hf", "hf_token", "huggingface_hub.login(token='{s}')"),
    ("hf", "hf_token", "HF_TOKEN={s} torchrun --nproc_per_node=8 train.py"),
    ("hf", "hf_token", "[rank0]: Using token {s} to download meta-llama/Llama-2-7b-hf"),
    ("hf", "hf_token", "python train.py --hf_token {s} --bf16"),
    ("wandb", "token", "WANDB_API_KEY={s}"),
    ("wandb", "wandb_key", "+ wandb login {s}"),
    ("wandb", "wandb_key", "$ wandb login --relogin {s}"),
    ("wandb", "password", "machine api.wandb.ai login user password {s}"),
    ("slack_bot", "slack_token", "SLACK_BOT_TOKEN={s}"),
    ("slack_user", "slack_token", "slack_sdk.errors.SlackApiError: invalid_auth for {s}"),
    ("slack_app", "slack_token", "SLACK_APP_TOKEN={s}"),
    ("slack_refresh", "slack_token", "refresh_token: {s}"),
    ("slack_webhook_path", "slack_webhook", "posting alert to https://hooks.slack.com/services/{s}"),
    ("gh_pat", "github_token", "git clone https://{s}@github.com/acme/llama-ft.git"),
    ("gh_fine", "github_token", "GITHUB_TOKEN={s}"),
    ("gho", "github_token", "  - Token: {s}"),
    ("glpat", "gitlab_token", "CI_JOB_TOKEN={s}"),
    ("pypi", "package_registry_token", "TWINE_PASSWORD={s}"),
    ("npm", "package_registry_token", "//registry.npmjs.org/:_authToken={s}"),
    ("openai", "openai_key", "OPENAI_API_KEY={s}"),
    ("openai_legacy", "openai_key", "openai.api_key = '{s}'"),
    ("anthropic", "anthropic_key", "ANTHROPIC_API_KEY={s}"),
    ("anthropic", "anthropic_key", "x-api-key: {s}"),
    ("jwt", "jwt", "Authorization: Bearer {s}"),
    ("jwt", "jwt", "KUBE_TOKEN={s}"),
    ("jwt", "jwt", "callback?id_token={s}&state=xyz"),
    ("password", "password", "DB_PASSWORD={s}"),
    ("password", "password", "python train.py --password={s} --epochs 3"),
    ("password", "password", "python train.py --db-password {s} --epochs 3"),
    ("password", "password", 'python train.py --db-password "{s}" --epochs 3'),
    ("password", "password", '{"username": "mlflow", "password": "{s}"}'),
    ("password", "password", "{'user': 'ci', 'passwd': '{s}'}"),
    ("password", "password", "  password: {s}"),
    ("password", "password", "MLFLOW_TRACKING_PASSWORD={s}"),
    ("password", "password", "PGPASSWORD={s} psql -h db -U app"),
    ("password", "password", "Server=tcp:sql.example.net,1433;User ID=app;Password={s};Encrypt=True;"),
    ("password", "password", "DENPEX_WEBHOOK_SECRET={s}"),
    ("password", "password", "conn_params: host=db pwd={s} dbname=runs"),
    ("password", "password", "curl -u alice:{s} https://artifactory.example.com"),
    ("password", "password", "mysql -h db -u root -p{s} runs"),
    ("password", "secret", "<password>{s}</password>"),
    ("url_password", "url_password", "MLFLOW_TRACKING_URI=https://mlflow:{s}@mlflow.internal.example.com"),
    ("url_password", "url_password", "DATABASE_URL=postgresql://app:{s}@db.internal:5432/runs"),
    (
        "url_password",
        "url_password",
        "redis.exceptions.ConnectionError: Error connecting to redis://:{s}@redis:6379/0",
    ),
    ("url_password", "url_password", "rendezvous endpoint etcd://root:{s}@etcd-0:2379 (NCCL bootstrap)"),
    ("url_password", "url_password", "mongodb+srv://ml:{s}@cluster0.abcde.mongodb.net/?retryWrites=true"),
    ("url_password", "url_password", "amqp://celery:{s}@rabbitmq:5672//"),
    ("bearer", "authorization", "curl -H 'Authorization: Bearer {s}' https://api.example.com"),
    ("basic", "authorization", "Authorization: Basic {s}"),
    ("bearer", "authorization", "proxy-authorization: {s}"),
    ("bearer", "bearer_token", "sending request with bearer {s}"),
    ("cookie", "cookie", "Cookie: {s}"),
]

#: Lines that look near a secret but hold none: they must come out unchanged.
FALSE_POSITIVES = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main, origin/main)",
    "saved /mnt/ckpt/step_001000/model.safetensors "
    "sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "[rank3]: step 12000/50000 loss=2.314 lr=3.0e-4 grad_norm=0.98 tokens/s=182344 global_step=12000",
    "Tokens per second: 51234.5",
    "loading /mnt/runs/3f2504e0-4f89-11d3-9a0c-0305e82c3301/global_step1000/mp_rank_00_model_states.pt",
    "#0  0x00007f4ebf9d3740 in ncclProxyProgress () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.",
    "gpu-01:12345:12401 [0] NCCL INFO comm 0x5581a2c0 rank 0 nranks 8 cudaDev 0 busId 3b000 "
    "commId 0x8ac6e2b4c9d1f00d - Init COMPLETE",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512",
    "tokenizer_config.json: pad_token=<pad> eos_token=</s> bos_token=<s> unk_token=<unk>",
    "Tokenizer: loaded meta-llama/Llama-2-7b-hf vocab_size=32000 max_tokens=4096 num_tokens: 1048576",
    "pad_token_id=0 eos token: 50256 total_token: 123456789 token_type_ids shape: torch.Size([8, 2048])",
    'FATAL:  password authentication failed for user "mlflow"',
    "Please set the password in the config file before starting the job",
    "Enter password:",
    "Password: ********",
    "password=None token=null api_key=${WANDB_API_KEY} secret: <your-secret> passwd=$DB_PASS",
    "NCCL version 2.18.5+cuda12.2",
    "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |",
    "torch 2.3.1+cu121 deepspeed 0.14.4 transformers 4.44.0",
    "PWD=/home/alice/train OLDPWD=/home/alice",
    "secretName: denpex-slack",
    "use_auth_token=True trust_remote_code=False",
    "hf_hub_download(repo_id='meta-llama/Llama-2-7b-hf', filename='config.json')",
    "pod/train-worker-5f8c9d7b6-x2k4z disk-usage-monitor-abcdefghijklmnopqrstuvwxyz",
    "[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=283, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600045 ms",
    "MASTER_ADDR=gpu-01 MASTER_PORT=29500 NCCL_COMM_ID=10.0.0.1:29500 WORLD_SIZE=64",
    "http://localhost:8080/metrics git@github.com:org/repo.git s3://bucket/ckpt/step_100",
    "sort_key=step cache_key=loss auth: none key: value",
    "ASIA-Pacific region, AKIA is a prefix",
    "GPU-5f2c1a3e-9b7d-4c1e-8f3a-2b6d9e0c1a4f uuid=5f2c1a3e-9b7d-4c1e-8f3a-2b6d9e0c1a4f",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3683',
    "    if token == expected_token:",
    "    conn = psycopg2.connect(host=args.host, password=args.password, token=self.api_token)",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0.",
    "wandb: Appending key for api.wandb.ai to your netrc file: /home/alice/.netrc",
    "[MASKED:hf_token] password=[MASKED:password] postgres://app:[MASKED:url_password]@db",
]


def _fill(template: str, value: str) -> str:
    return template.replace("{s}", value)


@functools.cache
def _engine_like_db() -> object:
    """The rules compiled the way the engine compiles them (no SINGLEMATCH, multi-line, bytes)."""
    rules = MASKER.rules
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[r.pattern.encode() for r in rules],
        ids=list(range(len(rules))),
        elements=len(rules),
        flags=[hyperscan.HS_FLAG_MULTILINE | (hyperscan.HS_FLAG_CASELESS * r.caseless) for r in rules],
    )
    return db


def _hs_rule_hits(line: str) -> list[str]:
    """The rule ids a Hyperscan scan of `line` reports, as the engine would pass them to mask_line."""
    rules, db = MASKER.rules, _engine_like_db()
    hits: set[int] = set()
    db.scan(line.encode("utf-8", "surrogatepass"), match_event_handler=lambda i, *_: hits.add(i))
    return [rules[i].id for i in sorted(hits)]


@pytest.mark.parametrize(("gen", "label", "template"), CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_secret_is_masked_by_every_entry_point(gen: str, label: str, template: str) -> None:
    secret = GEN[gen](random.Random(f"{gen}:{template}"))
    line = _fill(template, secret)
    expected = _fill(template, mask_token(label))
    assert MASKER.mask(line) == expected
    assert PY_MASKER.mask(line) == expected
    assert MASKER.mask_line(line, _hs_rule_hits(line)) == expected
    assert MASKER.mask_bytes(line.encode()) == expected.encode()
    assert MASKER.mask_lines([line]) == [expected]


@pytest.mark.parametrize("line", FALSE_POSITIVES)
def test_ordinary_log_text_stays_readable(line: str) -> None:
    assert MASKER.mask(line) == line
    assert MASKER.mask_line(line, [r.id for r in MASKER.rules]) == line
    assert MASKER.mask_bytes(line.encode()) == line.encode()


def _render_corpus(path: Path, seed: int) -> tuple[str, list[str], set[int]]:
    """Fill a corpus template; return the text, the secret values and the 0-based lines that hold one."""
    rng = random.Random(seed)
    values: dict[str, str] = {}

    def sub(m: re.Match[str]) -> str:
        return values.setdefault(m.group(1), GEN[m.group(1)](rng))

    out_lines: list[str] = []
    secret_lines: set[int] = set()
    for tline in path.read_text().splitlines():
        filled = re.sub(r"\{\{(\w+)\}\}", sub, tline)
        if filled != tline:
            secret_lines.update(range(len(out_lines), len(out_lines) + filled.count("\n") + 1))
        out_lines.extend(filled.split("\n"))
    return "\n".join(out_lines) + "\n", list(values.values()), secret_lines


@pytest.mark.parametrize("path", [p for p in sorted(CORPUS.iterdir()) if p.name != "README.md"], ids=str)
def test_corpus_file_masked_and_nothing_else_touched(path: Path) -> None:
    text, secrets, secret_lines = _render_corpus(path, seed=7)
    lines = text.split("\n")
    for masked in (
        MASKER.mask(text),
        PY_MASKER.mask(text),
        "\n".join(MASKER.mask_lines(lines)),
        MASKER.mask_bytes(text.encode()).decode(),
    ):
        out = masked.split("\n")
        assert len(out) == len(lines), "masking must keep line numbers"
        for secret in secrets:
            for part in secret.split("\n"):
                assert part not in masked
        for i, (before, after) in enumerate(zip(lines, out, strict=True)):
            if i not in secret_lines and "PRIVATE KEY-----" not in before:
                assert after == before


def test_private_key_block_across_lines() -> None:
    body = _pem_lines(random.Random(1))
    lines = ["before", "-----BEGIN EC PRIVATE KEY-----", *body, "-----END EC PRIVATE KEY-----", "after"]
    out = MASKER.mask_lines(lines)
    assert out[0] == "before" and out[-1] == "after"
    assert out[1] == "-----BEGIN EC PRIVATE KEY-----" and out[-2] == "-----END EC PRIVATE KEY-----"
    assert out[2:-2] == [mask_token("private_key")] * len(body)
    assert MASKER.mask("\r\n".join(lines)) == "\r\n".join(out[:-1]) + "\r\nafter"
    stream = MASKER.stream()
    assert stream.line(lines[1], ["private_key_block"]) == lines[1] and stream.in_block
    assert stream.line(body[0], []) == mask_token("private_key")
    assert stream.line(lines[-2], []) == lines[-2] and not stream.in_block


def test_key_body_cut_off_at_the_top_is_masked_up_to_its_end_marker() -> None:
    """A tail window that starts inside a key block: no BEGIN line, only base64 lines and END."""
    body = ["[default0]:" + line for line in _pem_lines(random.Random(4))[-5:]]
    lines = ["step 10 loss=2.0", *body, "[default0]:-----END RSA PRIVATE KEY-----", "after"]
    out = MASKER.mask_lines(lines)
    assert out == ["step 10 loss=2.0", *[mask_token("private_key")] * 5, *lines[-2:]]
    assert MASKER.mask("\n".join(lines)) == "\n".join(out)


def test_diagnosis_of_logs_full_of_secrets_holds_none(engine: Engine) -> None:
    """End to end through the engine: evidence, tails and node lines are all masked."""
    sources, secrets = [], []
    oom = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    for i, path in enumerate(p for p in sorted(CORPUS.iterdir()) if p.name != "README.md"):
        text, values, _ = _render_corpus(path, seed=11)
        secrets += [part for value in values for part in value.split("\n")]
        sources.append(LogSource(name=f"rank{i}.log", data=(text + oom + text).encode()))
    rendered = engine.diagnose(sources).model_dump_json()
    assert [s for s in secrets if s in rendered] == []


def corpus_groups(path: Path) -> list[str]:
    """Template lines of a corpus file; a YAML key whose value is on the lines below is one group."""
    groups: list[str] = []
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            continue
        if groups and line[:1] in " \t" and groups[-1].rstrip().endswith((":", "|", ">-")):
            groups[-1] += "\n" + line
        else:
            groups.append(line)
    return groups


def _fill_values(template: str, rng: random.Random) -> tuple[str, list[str]]:
    values = {name: GEN[name](rng) for name in re.findall(r"\{\{(\w+)\}\}", template)}
    text = re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], template)
    return text, [part for v in values.values() for part in v.split("\n") if part]


def test_secret_corpus_every_value_masked_by_every_entry_point() -> None:
    """>= 300 secret lines in the shapes of gitleaks', trufflehog's and detect-secrets' test data."""
    groups = corpus_groups(CORPUS / "secret_lines.txt")
    assert len(groups) >= 300
    rng, leaked = random.Random(2026), []
    for template in groups:
        text, secrets = _fill_values(template, rng)
        masked = MASKER.mask(text)
        outs = [
            PY_MASKER.mask(text),
            MASKER.mask_bytes(text.encode()).decode(),
            "\n".join(MASKER.mask_lines(text.split("\n"))),
        ]
        if any(part in masked for part in secrets) or any(o != masked for o in outs):
            leaked.append(text)
    assert leaked == []


def test_benign_corpus_unchanged_line_by_line_and_as_a_whole() -> None:
    lines = (CORPUS / "benign_lines.txt").read_text().splitlines()
    assert len(lines) >= 300
    assert [line for line in lines if MASKER.mask(line) != line] == []
    whole = "\n".join(lines)
    assert MASKER.mask(whole) == whole and MASKER.mask_bytes(whole.encode()) == whole.encode()


def test_node_hook_masks_the_corpus_exactly_as_the_masker() -> None:
    """deploy/slurm/denpex-slurm-hook carries a standard-library copy of the masker: same output."""
    loader = importlib.machinery.SourceFileLoader("denpex_hook", str(HOOK))
    spec = importlib.util.spec_from_loader("denpex_hook", loader)
    assert spec is not None
    hook = importlib.util.module_from_spec(spec)
    loader.exec_module(hook)
    for path in (CORPUS / "secret_lines.txt", CORPUS / "benign_lines.txt"):
        lines = _render_corpus(path, seed=5)[0].split("\n")
        assert hook.mask_lines(lines) == PY_MASKER.mask_lines(lines)


def test_mask_bytes_equals_mask_for_a_key_body_cut_off_at_the_top() -> None:
    body = _pem_lines(random.Random(8))[-4:]
    text = "\n".join(["step 3 loss=2.0", *body, "-----END RSA PRIVATE KEY-----", ""])
    assert MASKER.mask_bytes(text.encode()) == MASKER.mask(text).encode()
    assert body[0] not in MASKER.mask(text)


def test_a_secret_straddling_the_line_cut_is_masked_before_the_cut(engine: Engine) -> None:
    """Lines are cut to 4,096 characters after masking: a token across the cut must not survive."""
    secret = GEN["gh_pat"](random.Random(9))
    long_line = "[rank0]: config dump " + "x" * (4096 - 21 - 20) + " " + secret + " tail"
    oom = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    data = ("step 1 loss=2.0\n" + long_line + "\n" + oom).encode()
    rendered = engine.diagnose([LogSource(name="rank0.log", data=data)]).model_dump_json()
    assert secret[:12] not in rendered
    assert (
        max(
            len(t.text)
            for tail in engine.diagnose([LogSource(name="r.log", data=data)]).tails
            for t in tail.lines
        )
        <= 4097
    )


def test_truncated_private_key_block_stops_after_a_bound() -> None:
    lines = ["-----BEGIN PRIVATE KEY-----", *(["QUJD"] * 500)]
    out = MASKER.mask_lines(lines)
    assert out[1] == mask_token("private_key") and out[-1] == "QUJD"


def test_mask_line_starts_from_the_rules_given() -> None:
    """The scan's rule ids decide whether a line is touched; once it is, the result is made final."""
    line = "HF_TOKEN=" + GEN["hf"](random.Random(3)) + " DB_PASSWORD=hunter2x"
    assert MASKER.mask_line(line, []) == line
    assert MASKER.mask_line(line, ["no_such_rule", "gcp_api_key"]) == line
    masked = "HF_TOKEN=[MASKED:hf_token] DB_PASSWORD=[MASKED:password]"
    assert MASKER.mask_line(line, ["kv_named"]) == masked


def test_rules_compile_in_re_and_hyperscan_and_are_unique() -> None:
    rules = load_rules()
    assert isinstance(MASKER.rules[0], SecretRule)
    assert len({r.id for r in rules}) == len(rules)
    for r in rules:
        assert re.compile(r.pattern, r.flags) and re.compile(r.pattern.encode(), re.M | re.I)
        for extra in (0, hyperscan.HS_FLAG_SINGLEMATCH):  # how the engine and the Masker compile them
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            flags = hyperscan.HS_FLAG_MULTILINE | extra | (hyperscan.HS_FLAG_CASELESS if r.caseless else 0)
            db.compile(expressions=[r.pattern.encode()], ids=[0], elements=1, flags=[flags])


def test_bad_rules_fail_at_load(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="lookaround"):
        SecretRule(id="x", pattern="(?=a)b")
    bad = tmp_path / "secrets.toml"
    bad.write_text("[[rule]]\nid = \"x\"\npattern = '(unclosed'\n")
    with pytest.raises(ValueError, match="rule x"):
        load_rules(bad)


def test_masker_pickles_for_worker_processes() -> None:
    line = "token=" + GEN["bearer"](random.Random(2))
    assert pickle.loads(pickle.dumps(MASKER)).mask(line) == MASKER.mask(line)  # noqa: S301 - our own bytes


def test_large_text_with_rare_secret() -> None:
    filler = "[rank1]: step 100 loss=2.31 lr=3e-4 grad_norm=0.9 tokens/s=180000\n" * 4000
    secret = GEN["hf"](random.Random(5))
    text = filler + f"HF_TOKEN={secret}\n" + filler
    out = MASKER.mask(text)
    assert secret not in out and out.count("\n") == text.count("\n") and len(out) < len(text)


# --- properties ---------------------------------------------------------------------------------------

_FRAGMENTS = [
    " ",
    "\n",
    "\t",
    "=",
    ": ",
    '"',
    "'",
    "@",
    "://",
    ":",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "password",
    "token",
    "api_key",
    "Authorization: Bearer ",
    "key=",
    "[MASKED:x]",
    "sig=",
    "hf_",
    "eyJ",
    ".",
    "--password ",
    "https://u:",
    "&",
    ";",
    "\r",
    "é",
    "\x00",
]
_secret_values = st.builds(
    lambda name, seed: GEN[name](random.Random(f"{name}:{seed}")),
    st.sampled_from(sorted(GEN)),
    st.integers(0, 2**32),
)
_log_text = st.lists(
    st.one_of(st.text(max_size=12), st.sampled_from(_FRAGMENTS), _secret_values), max_size=14
).map("".join)
_PROP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Secrets that stand alone (recognisable by their shape), and (template, generator) for keyed ones.
_STANDALONE = [
    "aws_key_id",
    "gcp_api",
    "ya29",
    "hf",
    "slack_bot",
    "slack_app",
    "gh_pat",
    "gh_fine",
    "glpat",
    "pypi",
    "npm",
    "openai",
    "anthropic",
    "jwt",
]
_KEYED = [
    ("password={s}", "password"),
    ('"client_secret": "{s}"', "password"),
    ("WANDB_API_KEY={s}", "wandb"),
    ("https://u:{s}@host/db", "url_password"),
    ("Authorization: Bearer {s}", "bearer"),
    ("AccountKey={s};", "azure_key"),
    ("--db-password {s}", "password"),
]
_KINDS = _STANDALONE + [f"{t}|{g}" for t, g in _KEYED]


@_PROP
@given(st.text(), st.binary())
def test_arbitrary_input_never_raises(text: str, data: bytes) -> None:
    MASKER.mask(text)
    MASKER.mask_line(text, [r.id for r in MASKER.rules])
    MASKER.mask_lines(text.split("\n"))
    assert isinstance(MASKER.mask_bytes(data), bytes)
    assert MASKER.mask_bytes(data) == data or MASKER.hits(data)


@_PROP
@given(_log_text)
def test_masking_is_idempotent_and_backends_agree(text: str) -> None:
    once = MASKER.mask(text)
    assert MASKER.mask(once) == once
    assert PY_MASKER.mask(text) == once
    assert once.count("\n") == text.count("\n")


@_PROP
@given(_log_text, _log_text, st.sampled_from(_KINDS), st.integers(0, 99))
def test_secret_embedded_in_random_text_is_gone(prefix: str, suffix: str, kind: str, seed: int) -> None:
    template, gen = kind.split("|") if "|" in kind else ("{s}", kind)
    secret = GEN[gen](random.Random(f"embedded:{gen}:{seed}"))  # never one _log_text can generate
    out = MASKER.mask(f"{prefix} {_fill(template, secret)} {suffix}")
    assert secret not in out


@_PROP
@given(st.lists(_log_text.filter(lambda t: "\n" not in t), max_size=6))
def test_line_by_line_equals_whole_text(lines: list[str]) -> None:
    whole = MASKER.mask("\n".join(lines))
    assert "\n".join(MASKER.mask_lines(lines)) == whole
    if not any("PRIVATE KEY-----" in line for line in lines):
        assert "\n".join(MASKER.mask_line(line, _hs_rule_hits(line)) for line in lines) == whole


@_PROP
@given(_log_text)
def test_hyperscan_reports_every_rule_re_would_match(text: str) -> None:
    assert set(PY_MASKER.hits(text)) <= set(MASKER.hits(text))
