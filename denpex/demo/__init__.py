"""The bundled demo job: an 8-rank DeepSpeed ZeRO-3 run (Llama 8B) on gpu-01/gpu-02 that died at step 2000.

What happened (the diagnosis `denpex demo` should print): at 03:14:02 rank 5 ran out of GPU memory
while ZeRO-3 gathered the 16-bit weights for a consolidated checkpoint save; the other seven ranks
waited in the all-gather and hit the NCCL watchdog's 600 s timeout at 03:24:02. Rank 5's log also
prints a (fake) Hugging Face token, which must come out masked everywhere.
"""

from __future__ import annotations

from pathlib import Path

LOGS = Path(__file__).parent / "logs"
#: the planted fake secret; tests assert it never appears in Redis, Slack or the demo's output
PLANTED_TOKEN = "hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs"  # noqa: S105 - a fake, planted on purpose
INITIATING_RANK = 5
