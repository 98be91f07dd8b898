"""The ``suanli`` command line: thin commands that call one library function and format it.

Each command lives in a module of this package and registers itself on :data:`app`.
"""

from __future__ import annotations

import sys

import typer
from rich.markup import escape

from comparator.cli._common import State, err_console
from comparator.config import load_settings
from comparator.errors import SuanliError

app = typer.Typer(
    name="suanli",
    help="算力 Suanli — estimate, compare, plan and verify rented GPU compute.\n\n"
    "Example:  suanli init && suanli offers --gpu A100-80G --province 广东",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


@app.callback()
def global_options(
    ctx: typer.Context,
    db: str | None = typer.Option(
        None, "--db", envvar="SUANLI_DB", help="SQLAlchemy URL of the catalog database."
    ),
    lang: str = typer.Option("zh", "--lang", help="Language of human output: zh or en."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
) -> None:
    """Global options shared by every command."""
    if lang not in ("zh", "en"):
        raise typer.BadParameter("expected zh or en", param_hint="--lang")
    settings = load_settings(db_url=db)
    if settings.holidays_file:
        from comparator.domain import load_holidays_file, use_holiday_supplement

        use_holiday_supplement(load_holidays_file(settings.holidays_file))
    ctx.obj = State(settings=settings, lang=lang, debug=debug)


# Each command module registers its commands on `app`.
from comparator.cli.catalog_cmds import register as register_catalog  # noqa: E402
from comparator.cli.check_cmd import register as register_check  # noqa: E402
from comparator.cli.estimate_cmd import register as register_estimate  # noqa: E402
from comparator.cli.plan_cmd import register as register_plan  # noqa: E402
from comparator.cli.quote_cmd import register as register_quote  # noqa: E402
from comparator.cli.refresh_cmd import register as register_refresh  # noqa: E402
from comparator.cli.verify_cmd import register as register_verify  # noqa: E402

register_catalog(app)
register_check(app)
register_estimate(app)
register_plan(app)
register_quote(app)
register_refresh(app)
register_verify(app)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: clean one-line errors unless --debug is given.

    Exit codes: 0 success, 1 error, 2 usage error (Typer), 3 a failing verdict with --strict.
    """
    args = sys.argv[1:] if argv is None else argv
    try:
        app(args=args, prog_name="suanli", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except SuanliError as exc:
        if "--debug" in args:
            raise
        err_console().print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug, not bad input: still one line, never a traceback
        if "--debug" in args:
            raise
        err_console().print(
            f"[bold red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc)[:300])} "
            "(a bug in suanli: run again with --debug for the traceback and report it)",
            soft_wrap=True,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
