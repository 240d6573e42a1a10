"""``moelaws counts FILE`` on hostile config files: refused on one line, quickly, never a
traceback, and never a count whose meaning silently changed (issue 25, item 2).

Most cases run in this process (tests/cli_runner.py), timed; those that would hang or exhaust
memory if the reader trusted the file (a FIFO, ``/dev/zero``, a sparse file of gigabytes,
10^9 layers, 10,000 levels of nesting) run ``moelaws.cli.main`` in one subprocess, one after
another, each cut short after 10 CPU-seconds (or 60 s of waiting). Times are CPU times, which a
loaded machine does not stretch.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
MIXTRAL = json.loads((ROOT / "Mixtral-8x7B-v0.1" / "config.json").read_text(encoding="utf-8"))
SCOUT = json.loads((ROOT / "Llama-4-Scout-17B-16E-Instruct" / "config.json").read_text(
    encoding="utf-8"))
V2LITE = json.loads((ROOT / "DeepSeek-V2-Lite" / "config.json").read_text(encoding="utf-8"))
LIMIT_S = 10.0
"""CPU seconds a command may take (a loaded machine slows it in wall time, not in CPU time)."""
WAIT_S = 60
"""Wall seconds after which a command that waits without using the CPU (a FIFO opened for
reading waits for a writer) is cut short."""


def mixtral(**changes: Any) -> str:
    data = {k: v for k, v in (MIXTRAL | changes).items() if v is not _DROP}
    return json.dumps(data)


_DROP = object()


def raw_field(key: str, literal: str) -> str:
    """The Mixtral config with one value written as a raw JSON (or not-JSON) literal."""
    text = json.dumps(MIXTRAL | {key: "@@"})
    return text.replace('"@@"', literal)


def deep(levels: int) -> str:
    return json.dumps(MIXTRAL)[:-1] + ', "extra": ' + "[" * levels + "]" * levels + "}"


# id -> (file content: str, bytes, or a function making the path; substring of the error)
Maker = Callable[[Path], Path]
REFUSED: dict[str, tuple[str | bytes | Maker, str]] = {
    "bool as string": (mixtral(tie_word_embeddings="no"), "tie_word_embeddings must be a JSON "
                                                          "boolean"),
    "bool as int": (mixtral(tie_word_embeddings=1), "tie_word_embeddings must be a JSON boolean"),
    "bool as null-string": (mixtral(attention_bias="false"), "attention_bias must be a JSON"),
    "int as bool": (mixtral(num_hidden_layers=True), "num_hidden_layers must be a JSON integer"),
    "int as fraction": (mixtral(num_hidden_layers=2048.9), "num_hidden_layers must be a JSON "
                                                           "integer"),
    "int as integral float": (mixtral(num_hidden_layers=32.0), "num_hidden_layers must be a "
                                                               "JSON integer"),
    "int as string": (mixtral(num_hidden_layers="32"), "num_hidden_layers must be a JSON "
                                                       "integer"),
    "int as list": (mixtral(hidden_size=[4096]), "hidden_size must be a JSON integer"),
    "int as object": (mixtral(hidden_size={"value": 4096}), "hidden_size must be a JSON integer"),
    "negative width": (mixtral(hidden_size=-4096), "hidden_size=-4096 is outside"),
    "zero width": (mixtral(intermediate_size=0), "intermediate_size=0 is outside"),
    "zero kv heads": (mixtral(num_key_value_heads=0), "num_key_value_heads=0 is outside"),
    "zero experts": (mixtral(num_local_experts=0), "num_local_experts=0 is outside"),
    "top-k above experts": (mixtral(num_experts_per_tok=9), "top_k (9) must not exceed"),
    "kv heads not dividing": (mixtral(num_key_value_heads=5), "n_kv_heads (5) must divide"),
    "vocabulary above 1e7": (mixtral(vocab_size=10**8), "vocab_size=100000000 is outside"),
    "layers above 1e4": (mixtral(num_hidden_layers=10_001), "num_hidden_layers=10001 is outside"),
    "huge integer": (mixtral(hidden_size=10**400), "an integer of 401 digits"),
    "integer of 5000 digits": (raw_field("vocab_size", "9" * 5000), "not valid JSON"),
    "NaN literal": (raw_field("hidden_size", "NaN"), "NaN is not a JSON number"),
    "Infinity literal": (raw_field("hidden_size", "Infinity"), "Infinity is not a JSON number"),
    "-Infinity literal": (raw_field("rope_theta", "-Infinity"), "-Infinity is not a JSON"),
    "model_type list": (mixtral(model_type=["mixtral"]), "model_type must be a JSON string"),
    "model_type number": (mixtral(model_type=7), "model_type must be a JSON string"),
    "model_type missing": (mixtral(model_type=_DROP), "unsupported model_type None"),
    "layers missing": (mixtral(num_hidden_layers=_DROP), "no 'num_hidden_layers'"),
    "layers null": (mixtral(num_hidden_layers=None), "no 'num_hidden_layers'"),
    "vocabulary missing": (mixtral(vocab_size=_DROP), "no 'vocab_size'"),
    "empty file": ("", "not valid JSON"),
    "top-level list": ("[1, 2, 3]", "not a JSON object"),
    "top-level string": ('"config"', "not a JSON object"),
    "top-level null": ("null", "not a JSON object"),
    "not UTF-8": (b'{"model_type": "mixtral\xff\xfe"}', "not UTF-8"),
    "UTF-8 byte-order mark": (b"\xef\xbb\xbf" + mixtral().encode(), "not valid JSON"),
    "trailing comma": (mixtral()[:-1] + ",}", "not valid JSON"),
    "duplicate key": (mixtral()[:-1] + ', "num_hidden_layers": 1000000000}',
                      "duplicate key 'num_hidden_layers'"),
    "nesting 40 deep": (deep(40), "nests deeper than 32"),
    "over 1 MiB": (mixtral()[:-1] + ', "pad": "' + "x" * (1 << 20) + '"}', "larger than"),
    "layer list as string": (mixtral(mlp_only_layers="0,1"), "mlp_only_layers must be a JSON "
                                                             "list"),
    "layer list of floats": (mixtral(mlp_only_layers=[0.5]), "mlp_only_layers[0] must be a"),
    "sparse step zero": (mixtral(decoder_sparse_step=0), "decoder_sparse_step=0 is outside"),
    "non-gated FFN": (mixtral(hidden_act="gelu"), "hidden_act='gelu': only SwiGLU"),
    "activation as number": (mixtral(hidden_act=1), "hidden_act must be a JSON string"),
    "text_config as list": (json.dumps(SCOUT | {"text_config": [1]}), "text_config must be a "
                                                                      "JSON object"),
    "layer_types too short": (mixtral(layer_types=["full_attention"]), "layer_types lists 1"),
    "q_lora_rank as string": (json.dumps(V2LITE | {"q_lora_rank": "none"}),
                              "q_lora_rank must be a JSON integer"),
    "above 1e14 parameters": (mixtral(hidden_size=1_000_000, num_attention_heads=1000,
                                      num_key_value_heads=1000, intermediate_size=1_000_000,
                                      num_local_experts=100_000),
                              "above the plausible maximum"),
    "MoEConfig flag as string": (json.dumps({"n_layers": 20, "d_model": 640, "n_heads": 4,
                                             "d_ff": 1280, "tie_embeddings": "no"}),
                                 "tie_embeddings must be a JSON boolean"),
    "directory without config.json": (lambda d: (d / "empty").mkdir() or d / "empty",
                                      "no such configuration file"),
    "symlink loop": (lambda d: (d / "loop.json").symlink_to(d / "loop.json") or d / "loop.json",
                     "cannot read"),
    "missing file": (lambda d: d / "absent.json", "no such configuration file"),
}

# Read as before, with a warning: what the file says is what is counted.
WARNED: dict[str, tuple[str, str]] = {
    "unknown field": (mixtral(moe_extra_experts=2), "moe_extra_experts"),
    "unknown model_type": (mixtral(model_type="brand_new_moe"), "no n_shared_experts"),
}


def _write(tmp_path: Path, content: str | bytes | Maker) -> Path:
    if callable(content):
        return content(tmp_path)
    path = tmp_path / "config.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _timed(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    """The command's result and the CPU seconds it took."""
    start = time.process_time()
    proc = run_cli(*args)
    return proc, time.process_time() - start


def _assert_refused(proc: subprocess.CompletedProcess, message: str) -> None:
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:200])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("moelaws: error: "), proc.stderr
    assert message in lines[0], lines[0]
    assert proc.stdout == ""


def test_there_are_at_least_forty_hostile_cases() -> None:
    assert len(REFUSED) + len(WARNED) + len(HANGS) >= 40


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_hostile_config_is_refused_on_one_line(tmp_path: Path, case: str) -> None:
    content, message = REFUSED[case]
    proc, seconds = _timed("counts", str(_write(tmp_path, content)))
    _assert_refused(proc, message)
    assert seconds < LIMIT_S


@pytest.mark.parametrize("case", list(WARNED))
def test_a_config_with_unknown_fields_is_counted_with_a_warning(tmp_path: Path, case: str) -> None:
    content, field = WARNED[case]
    proc, seconds = _timed("counts", str(_write(tmp_path, content)))
    assert "Traceback" not in proc.stderr and seconds < LIMIT_S
    assert proc.returncode == 0
    lines = proc.stderr.strip().splitlines()
    assert lines and all(line.startswith("moelaws: warning: ") for line in lines)
    assert any(field in line for line in lines)


def _fifo(d: Path) -> Path:
    os.mkfifo(d / "config.json")
    return d / "config.json"


def _sparse(d: Path) -> Path:
    path = d / "big.json"
    with path.open("wb") as f:
        f.truncate(2 << 30)  # 2 GiB of zero bytes, no disk used
    return path


HANGS: dict[str, tuple[Maker, str]] = {
    "FIFO": (_fifo, "not a regular file"),
    "/dev/zero": (lambda d: Path("/dev/zero"), "not a regular file"),
    "2 GiB sparse file": (_sparse, "larger than"),
    "1e9 layers": (lambda d: _write(d, mixtral(num_hidden_layers=10**9)),
                   "num_hidden_layers=1000000000 is outside"),
    "10,000-deep nesting": (lambda d: _write(d, deep(10_000)), "nests deeper than 32"),
    "1e9 layers, unknown model_type": (
        lambda d: _write(d, mixtral(model_type="new_moe", num_hidden_layers=10**9)),
        "num_hidden_layers=1000000000 is outside"),
}

# The cases run one after another in a fresh process (tests/cli_runner.py's run_cli, as the
# other cases run here), each under timers set after the imports: LIMIT_S of CPU (SIGPROF) and
# WAIT_S of wall time (SIGALRM) for a case that waits; either ends the process (the outer
# timeout only guards the test run). A line on stdout says which case starts, the next one
# what it gave; after a case that ended the process, the cases not yet run go on in a new one.
_UNDER_ALARM = (
    "import json, signal, sys\n"
    "from cli_runner import run_cli\n"
    "for case, path in zip(sys.argv[1::2], sys.argv[2::2]):\n"
    "    print(json.dumps({'case': case}), flush=True)\n"
    f"    signal.setitimer(signal.ITIMER_PROF, {LIMIT_S!r})\n"
    f"    signal.alarm({WAIT_S})\n"
    "    proc = run_cli('counts', path)\n"
    "    signal.setitimer(signal.ITIMER_PROF, 0)\n"
    "    signal.alarm(0)\n"
    "    print(json.dumps({'case': case, 'returncode': proc.returncode,\n"
    "                      'stdout': proc.stdout, 'stderr': proc.stderr}), flush=True)\n"
)


@pytest.fixture(scope="module")
def under_alarm(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """{case: what ``counts`` gave, or ``{"died": exit status, "stderr": ...}`` for a case
    during which the process ended}."""
    cases = [(case, str(maker(tmp_path_factory.mktemp(f"hang{number}"))))
             for number, (case, (maker, _)) in enumerate(HANGS.items())]
    tests = Path(__file__).resolve().parent
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(tests.parent), str(tests)])}
    results: dict[str, dict[str, Any]] = {}
    while cases:
        proc = subprocess.run([sys.executable, "-c", _UNDER_ALARM,
                               *(item for pair in cases for item in pair)],
                              capture_output=True, text=True, timeout=300, check=False, env=env)
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        results |= {line["case"]: line for line in lines if "returncode" in line}
        ended = lines[-1]["case"] if lines and "returncode" not in lines[-1] else cases[0][0]
        if proc.returncode == 0 and all(case in results for case, _ in cases):
            break
        results[ended] = {"died": proc.returncode, "stderr": proc.stderr[-2000:]}
        cases = [pair for pair in cases if pair[0] not in results]
    return results


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                    reason="needs a POSIX system")
@pytest.mark.parametrize("case", list(HANGS))
def test_a_config_that_would_hang_a_trusting_reader_is_refused_in_time(
        under_alarm: dict[str, dict[str, Any]], case: str) -> None:
    result = under_alarm[case]
    if "died" in result:
        assert result["died"] != -signal.SIGPROF, f"{case}: still running after {LIMIT_S} CPU-s"
        assert result["died"] != -signal.SIGALRM, f"{case}: still waiting after {WAIT_S} s"
        pytest.fail(f"{case}: the process ended with status {result['died']}\n"
                    f"{result['stderr']}")
    proc = subprocess.CompletedProcess(["moelaws", "counts"], result["returncode"],
                                       result["stdout"], result["stderr"])
    _assert_refused(proc, HANGS[case][1])
