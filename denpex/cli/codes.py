"""`denpex codes create --days 14 --daily-limit 50 [--count N]`: mint evaluation codes.

The plain codes go to stdout once (one a line, easy to pipe into a mail merge); the note that they
are not recoverable goes to stderr. Redis keeps only hashes (`workers.quota`).
"""

from __future__ import annotations

import sys

import typer

from denpex.core.texts import slack as texts


def register(app: typer.Typer) -> None:
    codes = typer.Typer(name="codes", help=texts.CODES_HELP, no_args_is_help=True)

    @codes.command("create", help=texts.CODES_CREATE_HELP)
    def create(
        days: int = typer.Option(14, "--days", min=1, max=3650, help=texts.CODES_DAYS_HELP),
        daily_limit: int = typer.Option(50, "--daily-limit", min=1, max=100000, help=texts.CODES_LIMIT_HELP),
        count: int = typer.Option(1, "--count", min=1, max=10000, help=texts.CODES_COUNT_HELP),
        redeem_within: int = typer.Option(
            90, "--redeem-within", min=1, max=3650, help=texts.CODES_WITHIN_HELP
        ),
    ) -> None:
        raise typer.Exit(run_create(days, daily_limit, count, redeem_within))

    app.add_typer(codes)


def run_create(days: int, daily_limit: int, count: int, redeem_within: int) -> int:
    import redis

    from denpex.cli._runtime import redis_client
    from denpex.core.settings import MissingSetting, Settings
    from workers.quota import Quota
    from workers.redisconn import RedisTarget

    settings = Settings()
    try:
        where = RedisTarget.from_settings(settings).describe()
        client = redis_client(settings)
    except MissingSetting as exc:
        print(texts.codes_error(str(exc)), file=sys.stderr)
        return 2
    try:
        minted = Quota(client).create_codes(
            days=days, daily_limit=daily_limit, count=count, redeem_within_days=redeem_within
        )
    except redis.RedisError as exc:
        print(texts.codes_error(f"cannot reach Redis at {where} ({type(exc).__name__})"), file=sys.stderr)
        return 1
    finally:
        client.close()
    print(texts.CODES_SHOWN_ONCE, file=sys.stderr)
    for code in minted:
        print(code)
    return 0
