"""The command line's last resort: an unexpected exception (a bug in moelaws) is one line on
stderr and exit status 70, Ctrl-C is one line and 130, and ``MOELAWS_DEBUG=1`` re-raises."""

from __future__ import annotations

import pytest
from cli_runner import run_cli

from moelaws import cli

BUG_TAIL = "(this is a bug in moelaws; please report it with the command line)"


def _raise(exc: BaseException):
    def command(args):
        raise exc

    return command


@pytest.mark.parametrize(("exc", "shown"), [
    (RuntimeError("the law broke"), "RuntimeError: the law broke"),
    (KeyError("N_total"), "KeyError: 'N_total'"),
    (RecursionError("maximum recursion depth exceeded"),
     "RecursionError: maximum recursion depth exceeded"),
    (MemoryError(), "MemoryError"),
    (AttributeError("'float' object has no attribute 'N'\nsecond line"),
     "AttributeError: 'float' object has no attribute 'N' second line"),
], ids=["RuntimeError", "KeyError", "RecursionError", "MemoryError", "multiline"])
def test_an_unexpected_exception_is_one_line_and_status_70(monkeypatch, exc, shown) -> None:
    monkeypatch.delenv("MOELAWS_DEBUG", raising=False)
    monkeypatch.setattr(cli, "_tables", _raise(exc))
    result = run_cli("tables")
    assert result.returncode == cli.EXIT_SOFTWARE == 70
    assert result.stdout == ""
    assert result.stderr == f"moelaws: error: {shown} {BUG_TAIL}\n"
    assert "Traceback" not in result.stderr


def test_input_errors_keep_status_2(monkeypatch) -> None:
    monkeypatch.setattr(cli, "_tables", _raise(ValueError("bad budget")))
    result = run_cli("tables")
    assert (result.returncode, result.stderr) == (2, "moelaws: error: bad budget\n")


def test_ctrl_c_is_one_line_and_status_130(monkeypatch) -> None:
    monkeypatch.delenv("MOELAWS_DEBUG", raising=False)
    monkeypatch.setattr(cli, "_tables", _raise(KeyboardInterrupt()))
    result = run_cli("tables")
    assert result.returncode == 130
    assert result.stderr == "moelaws: error: interrupted\n"


@pytest.mark.parametrize("exc", [RuntimeError("the law broke"), KeyboardInterrupt()])
def test_moelaws_debug_re_raises(monkeypatch, exc) -> None:
    monkeypatch.setenv("MOELAWS_DEBUG", "1")
    monkeypatch.setattr(cli, "_tables", _raise(exc))
    with pytest.raises(type(exc)):
        run_cli("tables")


def test_moelaws_debug_0_does_not(monkeypatch) -> None:
    monkeypatch.setenv("MOELAWS_DEBUG", "0")
    monkeypatch.setattr(cli, "_tables", _raise(RuntimeError("x")))
    assert run_cli("tables").returncode == 70


def test_the_help_documents_the_exit_statuses() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "70 an unexpected error" in text and "MOELAWS_DEBUG=1" in text
    assert "130 interrupted" in text and "2 bad input" in text
