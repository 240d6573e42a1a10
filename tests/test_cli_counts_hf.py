"""``moelaws counts`` on Hugging Face config.json files and directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run_cli

from moelaws import arch
from moelaws.arch.hf_config import model_type_of
from moelaws.cli import main
from moelaws.compare.report import size

ROOT = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
MODELS = sorted(p.name for p in ROOT.iterdir() if (p / "config.json").is_file())
REFINED = [m for m in MODELS if model_type_of(json.loads((ROOT / m / "config.json").read_text(
    encoding="utf-8"))) in arch.SUPPORTED_MODEL_TYPES]


@pytest.mark.parametrize("model", REFINED)
def test_counts_reads_every_stored_config_file_of_a_refined_family(model: str, capsys) -> None:
    assert main(["counts", str(ROOT / model / "config.json")]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no warning: every field of the stored configs is understood
    assert out.startswith(model)
    assert "N, N_a: total and active parameters without embeddings (non-embedding)" in out
    assert "N+emb" in out and "N_a+emb" in out
    assert "e+0" not in out  # sizes in readable units, not 9.982e+04B


@pytest.mark.parametrize("model", sorted(set(MODELS) - set(REFINED)))
def test_counts_reads_or_refuses_every_other_stored_config_on_one_line_each(model: str) -> None:
    proc = run_cli("counts", str(ROOT / model / "config.json"))
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    if proc.returncode == 0:
        assert proc.stdout.startswith(model)
        assert lines and all(line.startswith("moelaws: warning: ") for line in lines)
    else:
        assert proc.returncode == 2 and len(lines) == 1
        assert lines[0].startswith("moelaws: error: ") and proc.stdout == ""


def test_counts_reads_a_directory_and_prints_totals_a_model_card_can_be_read_against(
        capsys) -> None:
    assert main(["counts", str(ROOT / "Qwen3-235B-A22B")]) == 0
    exact = next(line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("exact "))
    # N, N_a, emb, N+emb, N_a+emb: the card's "235B in total and 22B activated" read off.
    assert exact.split()[1:6] == ["233.8B", "20.9B", "1.2B", "235.1B", "22.2B"]


def test_counts_json_keeps_its_fields_and_adds_totals_with_embeddings(capsys) -> None:
    assert main(["counts", str(ROOT / "DeepSeek-V3"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    exact = data["counts"]["exact"]
    old = {"total", "active", "embedding", "attention_flops", "ffn_flops", "logits_flops",
           "forward_flops", "compute_per_token", "note"}
    assert old < set(exact)
    assert exact["total_with_embeddings"] == exact["total"] + exact["embedding"]
    assert exact["total_with_embeddings"] / 1e9 == pytest.approx(671.03, abs=0.01)
    assert data["config"]["mla"]["kv_lora_rank"] == 512


def test_counts_warns_on_one_line_per_unknown_field(tmp_path, capsys) -> None:
    cfg = json.loads((ROOT / "Mixtral-8x7B-v0.1" / "config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg | {"extra_experts": 2}))
    assert main(["counts", str(tmp_path)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("moelaws: warning: ") and "extra_experts" in err[0]


@pytest.mark.parametrize(
    ("config", "message"),
    [({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2,
       "num_attention_heads": 32}, "not an MoE configuration"),
     ({"architectures": ["GPT2LMHeadModel"]}, "unsupported model_type None"),
     ({"model_type": "mixtral", "hidden_size": 8}, "has no 'num_hidden_layers'")],
)
def test_unsupported_or_incomplete_configs_fail_on_one_line(tmp_path, config, message) -> None:
    (tmp_path / "config.json").write_text(json.dumps(config))
    proc = run_cli("counts", str(tmp_path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith("moelaws: error: ") and message in lines[0]
    if "unsupported" in message:
        assert ", ".join(arch.SUPPORTED_MODEL_TYPES) in lines[0]
    assert proc.stdout == ""


def test_a_directory_without_config_json_is_a_one_line_error(tmp_path, capsys) -> None:
    assert main(["counts", str(tmp_path)]) == 2
    assert "no such configuration file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "text"),
    [(9.982e13, "99.8T"), (2.351e11, "235.1B"), (3.05e7, "30.5M"), (512.0, "512"),
     (None, "-"), (float("nan"), "-")],
)
def test_sizes_print_in_readable_units(value, text) -> None:
    assert size(value) == text
