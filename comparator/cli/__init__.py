"""The ``suanli`` command line: thin commands that call one library function and format it.

Each command lives in a module of this package and registers itself on :data:`app`.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import typer
import typer.main

from comparator.cli._common import State
from comparator.cli.failures import (
    command_of,
    lang_of,
    print_failure,
    report_error,
    report_usage_error,
)
from comparator.cli.helptext import HelpCommand, HelpGroup, localize
from comparator.config import load_settings
from comparator.errors import SuanliError
from comparator.i18n import say

app = typer.Typer(
    name="suanli",
    help="算力 Suanli — estimate, compare, plan and verify rented GPU compute.\n\n"
    "Example:  suanli init && suanli offers --gpu A100-80G --province 广东",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    cls=HelpGroup,
)


def _print_version(value: bool) -> None:
    if value:
        import comparator  # its version is read on first use (importlib.metadata is slow)

        typer.echo(f"suanli {comparator.__version__}")
        raise typer.Exit(0)


@app.callback()
def global_options(
    ctx: typer.Context,
    db: str | None = typer.Option(
        None, "--db", envvar="SUANLI_DB", help="SQLAlchemy URL of the catalog database."
    ),
    lang: str = typer.Option("zh", "--lang", help="Language of human output: zh or en."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        is_eager=True,
        callback=_print_version,
        help="Print the version and exit.",
    ),
) -> None:
    """Global options shared by every command."""
    if lang not in ("zh", "en"):
        # --lang is what is wrong, so the message is in the default language with its English
        expected = f"{say('zh', 'expected zh or en')} ({say('en', 'expected zh or en')})"
        got = say("zh", "got {lang!r}", lang=lang)
        raise typer.BadParameter(f"{expected}, {got}", param_hint="--lang")
    settings = load_settings(db_url=db)
    if settings.holidays_file:  # a bad file is one clear error, whatever the command
        from comparator.domain import load_holidays_file

        load_holidays_file(settings.holidays_file)  # the services read it into the context
    ctx.obj = State(settings=settings, lang=lang, debug=debug)


def help_command(
    ctx: typer.Context,
    command: list[str] = typer.Argument(None, help="The command (and subcommand) to explain."),
) -> None:
    """Show the help of suanli or of one command, as COMMAND --help does.

    Example:  suanli help offers
    """
    from comparator.errors import OptionError

    target = ctx.find_root()
    for name in command or []:
        sub = getattr(target.command, "commands", {}).get(name)
        if sub is None:
            raise OptionError(
                "unknown command {command}", command=name, hint="`suanli help` lists every command"
            )
        target = sub.make_context(name, [], parent=target, resilient_parsing=True)
    typer.echo(target.get_help())


# Each command module registers its commands on `app`.
from comparator.cli.catalog_cmds import register as register_catalog  # noqa: E402
from comparator.cli.check_cmd import register as register_check  # noqa: E402
from comparator.cli.estimate_cmd import register as register_estimate  # noqa: E402
from comparator.cli.plan_cmd import register as register_plan  # noqa: E402
from comparator.cli.quote_cmd import register as register_quote  # noqa: E402
from comparator.cli.refresh_cmd import register as register_refresh  # noqa: E402
from comparator.cli.report_cmd import register as register_report  # noqa: E402
from comparator.cli.schema_cmd import register as register_schema  # noqa: E402
from comparator.cli.verify_cmd import register as register_verify  # noqa: E402

register_catalog(app)
register_check(app)
register_estimate(app)
register_plan(app)
register_quote(app)
register_refresh(app)
register_schema(app)
register_report(app)
register_verify(app)
app.command("help", cls=HelpCommand)(help_command)


def _bare(args: list[str]) -> bool:
    """Only global options (``--db URL``, ``--lang en``, ``--debug``): no command given."""
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("--db", "--lang") and rest:
            rest.pop(0)
        elif not (arg == "--debug" or arg.startswith(("--db=", "--lang="))):
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: clean one-line errors unless --debug is given.

    Exit codes: 0 success, 1 error, 2 usage error (Typer), 3 a failing verdict with --strict.
    """
    args = sys.argv[1:] if argv is None else argv
    lang = lang_of(args)
    if _bare(args):  # `suanli`, `suanli --lang en`: the help, exit 0
        args = [*args, "--help"]
    try:
        command = localize(typer.main.get_command(app), lang)
        code = command.main(args=args, prog_name="suanli", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except SuanliError as exc:
        if "--debug" in args:
            raise
        return report_error(exc, lang, command_of(args))
    except typer.TyperException as exc:  # click's usage errors, Abort
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `suanli`: its help, as --help
            typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]
            return 0
        if int(getattr(exc, "exit_code", 1)) == 2:
            return report_usage_error(exc, lang)
        print_failure(str(exc) or say(lang, "aborted"), None)
        return int(getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        return _interrupted(lang)
    except Exception as exc:  # a bug, not bad input: still one line, never a traceback
        if "--debug" in args:
            raise
        print_failure(
            say(lang, "unexpected {__name__}: ", __name__=type(exc).__name__) + str(exc)[:300],
            say(lang, "a bug in suanli: run again with --debug for the traceback and report it"),
        )
        return 1
    if code == INTERRUPTED:  # typer turns Ctrl-C into exit 130 without a word
        return _interrupted(lang)
    return code if isinstance(code, int) else 0


INTERRUPTED = 130


def run() -> NoReturn:
    """The ``suanli`` console script and ``python -m comparator``: :func:`main`, then leave.

    Tearing the interpreter down (freeing every module and the planner's objects one by one)
    took 0.3–0.4 CPU s after a quote at 1M offers (2026-12-03, the seeds' 13B job: process CPU
    less the CPU at ``atexit``); the operating system frees it all at once. So when the command
    has finished and nothing else runs (no other thread, no child process), the output is
    flushed, the database connections are closed properly, and the process ends at once.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    if _alone():
        if "comparator.catalog.db" in sys.modules:
            from comparator.catalog import dispose_engines

            dispose_engines()
        if "logging" in sys.modules:  # its atexit hook flushes and closes log files
            sys.modules["logging"].shutdown()
        os._exit(code)
    sys.exit(code)


def _alone() -> bool:
    """Whether only this thread runs: no other thread, no child process of multiprocessing,
    no profiler or tracer (cProfile, coverage) that writes what it saw at exit."""
    import threading

    if threading.active_count() > 1 or sys.getprofile() or sys.gettrace():
        return False
    children = sys.modules.get("multiprocessing")
    return children is None or not children.active_children()


def _interrupted(lang: str) -> int:
    """Ctrl-C outside a step that says more (quote says which number it saved)."""
    print_failure(
        say(lang, "interrupted (Ctrl-C): the step that was running is not saved"),
        say(lang, "run the same command again to finish it"),
    )
    return INTERRUPTED


if __name__ == "__main__":
    run()
