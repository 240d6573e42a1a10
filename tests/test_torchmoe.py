"""Tests of moelaws.torchmoe: shapes, routing, balancing losses, dispatch, counts, training."""

from __future__ import annotations

import importlib.util
import json
import math

import pytest
from import_checks import heavy_imports

torch = pytest.importorskip("torch")

from moelaws import arch  # noqa: E402
from moelaws.arch import MLA, MoEConfig  # noqa: E402
from moelaws.torchmoe import (  # noqa: E402  # noqa: E402
    DISPATCHES,
    MoETransformer,
    available_dispatches,
    balance_loss,
    bench,
    data,
    route,
    sweep,
    z_loss,
)
from moelaws.torchmoe.train import (  # noqa: E402
    TrainSettings,
    coefficient_of_variation,
    expert_load,
    max_balance_loss,
    max_load_cv,
    train,
)

TINY = dict(n_layers=2, d_model=32, n_heads=4, vocab_size=50, context_length=16)

CONFIGS = {
    "dense": MoEConfig(d_ff=48, **TINY),
    "dense-tied": MoEConfig(d_ff=48, tie_embeddings=True, **TINY),
    "moe": MoEConfig(n_experts=8, top_k=2, d_expert=24, **TINY),
    "moe-everything": MoEConfig(
        n_layers=3, d_model=32, n_heads=4, n_kv_heads=2, head_dim=12, d_ff=40,
        n_experts=6, top_k=3, n_shared=2, d_expert=16, d_shared=20, n_dense_layers=1,
        vocab_size=50, context_length=16, attention_bias=True, expert_bias=True,
        tie_embeddings=True,
    ),
    "moe-top1-shared": MoEConfig(n_experts=4, top_k=1, n_shared=1, d_expert=16, **TINY),
}


# --- imports --------------------------------------------------------------------------------


def test_core_packages_do_not_import_torch_statsmodels_or_scipy_stats():
    # Every chapter loads the paper registry (claims); torch and statsmodels take seconds to
    # import, scipy.stats about half a second, and only the chapters that train, fit an OLS or
    # bootstrap need them.
    # (each paper's folder checks its own modules: tests/papers/<id>/test_<id>_imports.py)
    names = ["moelaws", "moelaws.arch", "moelaws.claims", "moelaws.fit", "moelaws.charts",
             "moelaws.papers"]
    present = [n for n in names if importlib.util.find_spec(n) is not None]
    assert {"moelaws", "moelaws.arch", "moelaws.claims"} <= set(present)
    assert heavy_imports(names) == "[]"


# --- shapes and routing -----------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CONFIGS))
def test_output_shapes(name):
    cfg = CONFIGS[name]
    torch.manual_seed(0)
    model = MoETransformer(cfg)
    idx = torch.randint(0, cfg.vocab_size, (3, 10))
    out = model(idx, idx)
    assert out.logits.shape == (3, 10, cfg.vocab_size)
    assert out.loss.shape == () and torch.isfinite(out.loss)
    assert len(out.routing) == cfg.n_moe_layers
    for r in out.routing:
        assert r.indices.shape == (30, cfg.top_k)
        assert r.weights.shape == (30, cfg.top_k)
        assert int(r.counts.sum()) == 30 * cfg.top_k
        assert r.mean_probs.shape == (cfg.n_experts,)
    if not cfg.is_moe:
        assert out.balance_loss is None and torch.equal(out.loss, out.ce_loss)


def test_sequence_longer_than_context_is_rejected():
    model = MoETransformer(CONFIGS["moe"])
    with pytest.raises(ValueError, match="context_length"):
        model(torch.zeros(1, 17, dtype=torch.long))


def test_mla_config_is_rejected():
    cfg = MoEConfig(
        n_layers=1, d_model=32, n_heads=4, d_ff=32, vocab_size=10, context_length=8,
        mla=MLA(kv_lora_rank=8, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8),
    )
    with pytest.raises(ValueError, match="MLA"):
        MoETransformer(cfg)


def test_unknown_dispatch_is_rejected():
    with pytest.raises(ValueError, match="dispatch"):
        MoETransformer(CONFIGS["moe"], dispatch="magic")


def test_route_top_k_indices_and_weights():
    logits = torch.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 0.0, 0.0, 1.0]])
    probs, idx, w = route(logits, 2)
    expected = torch.softmax(logits, -1)
    assert torch.allclose(probs, expected)
    assert idx.tolist() == [[3, 2], [0, 3]]
    assert torch.allclose(w, expected.gather(1, idx))
    _, idx_n, w_n = route(logits, 2, renormalize=True)
    assert torch.equal(idx_n, idx)
    assert torch.allclose(w_n.sum(-1), torch.ones(2))
    assert torch.allclose(w_n[0], torch.tensor([math.e / (1 + math.e), 1 / (1 + math.e)]))


def test_route_weights_come_from_softmax_over_all_experts():
    # top-1 of a 4-way softmax: the weight is the full-softmax probability, not 1
    _, idx, w = route(torch.tensor([[2.0, 0.0, 0.0, 0.0]]), 1)
    assert idx.item() == 0
    assert w.item() == pytest.approx(math.exp(2) / (math.exp(2) + 3))


# --- balancing losses on hand-made inputs ------------------------------------------------


def test_balance_loss_uniform_router_is_one():
    n, e = 8, 4
    probs = torch.full((n, e), 1 / e)
    idx = torch.arange(n).remainder(e).unsqueeze(1)  # 2 tokens per expert
    assert balance_loss(probs, idx, e).item() == pytest.approx(1.0)


def test_balance_loss_collapsed_router_is_n_experts():
    n, e = 5, 4
    probs = torch.zeros(n, e)
    probs[:, 0] = 1
    idx = torch.zeros(n, 1, dtype=torch.long)
    assert balance_loss(probs, idx, e).item() == pytest.approx(e)


def test_balance_loss_hand_computed_top2():
    # 2 tokens, 3 experts, top-2: assignments {0, 1} and {0, 2} -> f = (2/4, 1/4, 1/4)
    probs = torch.tensor([[0.5, 0.3, 0.2], [0.6, 0.1, 0.3]])
    idx = torch.tensor([[0, 1], [0, 2]])
    p_mean = [0.55, 0.2, 0.25]
    expected = 3 * (0.5 * p_mean[0] + 0.25 * p_mean[1] + 0.25 * p_mean[2])
    assert balance_loss(probs, idx, 3).item() == pytest.approx(expected)


def test_balance_loss_gradient_flows_through_probabilities_only():
    logits = torch.tensor([[1.0, 0.0], [1.0, 0.0]], requires_grad=True)
    probs = logits.softmax(-1)
    idx = probs.topk(1, dim=-1).indices
    balance_loss(probs, idx, 2).backward()
    # all tokens on expert 0: f = (1, 0); loss = 2 * mean(p0), pushing logit 0 down
    assert (logits.grad[:, 0] > 0).all() and (logits.grad[:, 1] < 0).all()


def test_z_loss_values():
    assert z_loss(torch.zeros(3, 4)).item() == pytest.approx(math.log(4) ** 2)
    logits = torch.tensor([[0.0, math.log(3.0)]])  # logsumexp = log 4
    assert z_loss(logits).item() == pytest.approx(math.log(4) ** 2)


def test_model_loss_combines_coefficients():
    torch.manual_seed(0)
    model = MoETransformer(CONFIGS["moe"], aux_loss_coef=0.5, z_loss_coef=0.25)
    idx = torch.randint(0, 50, (2, 8))
    out = model(idx, idx)
    expected = out.ce_loss + 0.5 * out.balance_loss + 0.25 * out.z_loss
    assert torch.allclose(out.loss, expected)


# --- dispatch equivalence -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["moe", "moe-everything", "moe-top1-shared"])
def test_dispatch_implementations_agree(name):
    cfg = CONFIGS[name]
    torch.manual_seed(0)
    model = MoETransformer(cfg, dispatch="loop")
    idx = torch.randint(0, cfg.vocab_size, (4, 16))
    results = {}
    for dispatch in available_dispatches():
        model.dispatch = dispatch
        model.zero_grad(set_to_none=True)
        out = model(idx, idx)
        out.loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        results[dispatch] = (out.logits.detach(), out.loss.detach(), grads)
    ref_logits, ref_loss, ref_grads = results["loop"]
    assert len(ref_grads) == len(list(model.parameters()))
    for dispatch, (logits, loss, grads) in results.items():
        assert torch.allclose(logits, ref_logits, atol=1e-5), dispatch
        assert torch.allclose(loss, ref_loss, atol=1e-6), dispatch
        assert grads.keys() == ref_grads.keys()
        for n, g in grads.items():
            assert torch.allclose(g, ref_grads[n], atol=1e-6, rtol=1e-4), (dispatch, n)


def test_grouped_dispatch_available_when_torch_has_grouped_mm():
    has = hasattr(torch.nn.functional, "grouped_mm")
    assert ("grouped" in available_dispatches()) == has
    assert set(available_dispatches()) <= set(DISPATCHES)


@pytest.mark.parametrize("dispatch", available_dispatches())
def test_expert_with_no_tokens_gets_zero_gradient(dispatch):
    torch.manual_seed(0)
    model = MoETransformer(CONFIGS["moe"], dispatch=dispatch)
    idx = torch.randint(0, 50, (1, 2))  # 2 tokens, top-2 of 8 experts: some experts idle
    out = model(idx, idx)
    out.loss.backward()
    moe = model.moe_layers()[0]
    used = set(out.routing[0].indices.reshape(-1).tolist())
    idle = [e for e in range(moe.n_experts) if e not in used]
    assert idle
    assert torch.count_nonzero(moe.w_in.grad[idle]) == 0
    assert torch.count_nonzero(moe.w_out.grad[idle]) == 0


# --- counts vs moelaws.arch ----------------------------------------------------------------


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parameter_count_matches_arch(name):
    cfg = CONFIGS[name]
    model = MoETransformer(cfg)
    n = sum(p.numel() for p in model.parameters())
    assert n == arch.total_params(cfg, "exact") + arch.embedding_params(cfg)
    assert n == arch.total_params(cfg, "exact", embeddings=True)


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("training", [False, True])
def test_analytic_flops_match_arch(name, training):
    cfg = CONFIGS[name]
    model = MoETransformer(cfg)
    assert model.flops_per_token(training=training) == arch.flops(cfg, "exact", training=training)


@pytest.mark.parametrize("name", ["dense", "moe-everything"])
def test_measured_matmul_flops_match_arch(name):
    """torch's FLOP counter over a full-context forward (and backward) agrees with arch."""
    from torch.utils.flop_counter import FlopCounterMode

    cfg = CONFIGS[name]
    torch.manual_seed(0)
    model = MoETransformer(cfg, dispatch="sorted", attention="math")
    b, t = 2, cfg.context_length
    idx = torch.randint(0, cfg.vocab_size, (b, t))
    with FlopCounterMode(display=False) as counter:
        model(idx)
    assert counter.get_total_flops() / (b * t) == arch.flops(cfg, "exact", training=False)
    with FlopCounterMode(display=False) as counter:
        model(idx, idx).loss.backward()
    assert counter.get_total_flops() / (b * t) == arch.flops(cfg, "exact", training=True)


def test_math_and_sdpa_attention_agree():
    cfg = CONFIGS["moe-everything"]
    torch.manual_seed(0)
    a = MoETransformer(cfg, attention="sdpa")
    b = MoETransformer(cfg, attention="math")
    b.load_state_dict(a.state_dict())
    idx = torch.randint(0, cfg.vocab_size, (2, 12))
    assert torch.allclose(a(idx).logits, b(idx).logits, atol=1e-5)


def test_attention_is_causal():
    torch.manual_seed(0)
    model = MoETransformer(CONFIGS["dense"])
    idx = torch.randint(0, 50, (1, 12))
    changed = idx.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % 50
    assert torch.allclose(model(idx).logits[:, :8], model(changed).logits[:, :8], atol=1e-6)


# --- corpora ---------------------------------------------------------------------------------


def test_pydoc_corpus_round_trips():
    corpus = data.pydoc_corpus()
    assert corpus.vocab_size == len(set(data.pydoc_text()))
    assert corpus.decode(corpus.train[:200]) == data.pydoc_text()[:200]
    assert corpus.train_groups is None and corpus.floor is None
    assert corpus.train.numel() > 9 * corpus.val.numel() - 10


def test_synthetic_corpus_is_deterministic_and_labelled():
    kw = dict(n_languages=3, alphabet=5, n_common=2, branching=2, doc_len=20,
              train_docs=30, val_docs=10)
    a, b = data.synthetic_corpus(**kw, seed=1), data.synthetic_corpus(**kw, seed=1)
    c = data.synthetic_corpus(**kw, seed=2)
    assert torch.equal(a.train, b.train) and a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint
    assert a.vocab_size == 1 + 2 + 3 * 5
    assert a.train.numel() == 30 * 21 and a.train_groups.shape == a.train.shape
    assert len(a.group_names) == 3
    # every document starts with <s>; its other tokens are common or its language's own
    docs, groups = a.train.view(30, 21), a.train_groups.view(30, 21)
    assert (docs[:, 0] == 0).all()
    for doc, lang in zip(docs, groups[:, 0], strict=True):
        own = set(range(3 + 5 * int(lang), 3 + 5 * (int(lang) + 1)))
        assert set(doc[1:].tolist()) <= own | {1, 2}
    # the oracle floor lies between the branching entropy's share and log(alphabet + common)
    assert 0 < a.floor < math.log(7)


def test_batches_are_shifted_windows():
    corpus = data.synthetic_corpus(n_languages=2, alphabet=4, n_common=1, doc_len=16,
                                   train_docs=8, val_docs=4)
    gen = torch.Generator().manual_seed(0)
    x, y, g = corpus.batch("train", 3, 10, gen)
    assert x.shape == y.shape == g.shape == (3, 10)
    assert torch.equal(x[:, 1:], y[:, :-1])


# --- training ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_corpus():
    return data.synthetic_corpus(n_languages=2, alphabet=8, n_common=2, branching=2,
                                 doc_len=32, train_docs=64, val_docs=8)


def _tiny_cfg(corpus, **kw):
    base = dict(n_layers=2, d_model=32, n_heads=2, context_length=16,
                vocab_size=corpus.vocab_size)
    base.update(kw)
    return MoEConfig(**base)


SHORT = TrainSettings(steps=12, batch_size=4, eval_every=4, eval_batches=2, warmup_steps=2)


def test_training_is_deterministic(tiny_corpus):
    cfg = _tiny_cfg(tiny_corpus, n_experts=4, top_k=2, d_expert=16)
    a = train(cfg, tiny_corpus, SHORT, seed=3, progress=False)
    b = train(cfg, tiny_corpus, SHORT, seed=3, progress=False)
    c = train(cfg, tiny_corpus, SHORT, seed=4, progress=False)
    cols = ["train_loss", "val_loss", "balance_loss", "load_cv"]
    assert a.history[cols].equals(b.history[cols])
    assert a.load.equals(b.load)
    assert not a.history["train_loss"].equals(c.history["train_loss"])
    assert a.history["val_loss"].iloc[-1] != c.history["val_loss"].iloc[-1]


def test_training_reports_tokens_flops_and_load(tiny_corpus):
    cfg = _tiny_cfg(tiny_corpus, n_experts=4, top_k=2, d_expert=16)
    r = train(cfg, tiny_corpus, SHORT, seed=0, progress=False)
    h = r.history
    assert h["step"].tolist() == [0, 4, 8, 12]
    assert h["tokens"].tolist() == [s * 4 * 16 for s in h["step"]]
    assert h["flops"].tolist() == [t * arch.flops(cfg, "exact") for t in h["tokens"]]
    assert h["val_loss"].iloc[-1] < h["val_loss"].iloc[0]
    # load: fractions sum to one per layer and group; groups are 'all' + the languages
    sums = r.load.groupby(["layer", "group"])["fraction"].sum()
    assert sums.to_numpy() == pytest.approx(1.0)
    assert set(r.load["group"]) == {"all", *tiny_corpus.group_names}
    assert r.load["layer"].nunique() == 2 and r.load["expert"].nunique() == 4
    assert r.load_cv >= 0
    summary = r.summary()
    assert summary["tokens"] == 12 * 4 * 16
    assert summary["n_params"] == arch.total_params(cfg, "exact", embeddings=True)


def test_dense_training_has_no_load(tiny_corpus):
    r = train(_tiny_cfg(tiny_corpus, d_ff=32), tiny_corpus, SHORT, progress=False)
    assert r.load.empty and math.isnan(r.load_cv)
    assert r.history["balance_loss"].isna().all()


def test_vocab_mismatch_is_rejected(tiny_corpus):
    cfg = _tiny_cfg(tiny_corpus, d_ff=32).replace(vocab_size=tiny_corpus.vocab_size + 1)
    with pytest.raises(ValueError, match="vocab"):
        train(cfg, tiny_corpus, SHORT, progress=False)


def test_coefficient_of_variation():
    assert coefficient_of_variation([5, 5, 5, 5]) == 0
    assert coefficient_of_variation([4, 0, 0, 0]) == pytest.approx(math.sqrt(3))
    assert coefficient_of_variation([1, 3]) == pytest.approx(0.5)


@pytest.mark.parametrize("experts, k", [(8, 1), (8, 2), (32, 2), (6, 3)])
def test_the_top_k_bounds_are_reached_by_routing_onto_k_experts(experts, k):
    """Chapter 1's corrected maxima: CV sqrt(E/k - 1) and balance loss E/k, not sqrt(E-1), E."""
    tokens = 4 * experts
    chosen = torch.arange(k).repeat(tokens, 1)
    probs = torch.zeros(tokens, experts)
    probs[:, :k] = 1 / k
    counts = torch.bincount(chosen.flatten(), minlength=experts).numpy()
    assert coefficient_of_variation(counts) == pytest.approx(max_load_cv(experts, k))
    loss = balance_loss(probs, chosen, experts).item()
    assert loss == pytest.approx(max_balance_loss(experts, k))
    if k > 1:
        assert max_load_cv(experts, k) < math.sqrt(experts - 1)
        assert max_balance_loss(experts, k) < experts


def test_no_random_top_k_routing_exceeds_the_bounds():
    gen = torch.Generator().manual_seed(0)
    for _ in range(200):
        logits = 4 * torch.randn(64, 8, generator=gen)
        probs, chosen, _ = route(logits, 2)
        counts = torch.bincount(chosen.flatten(), minlength=8).numpy()
        assert coefficient_of_variation(counts) <= max_load_cv(8, 2) + 1e-9
        assert balance_loss(probs, chosen, 8).item() <= max_balance_loss(8, 2) + 1e-6


def test_the_balance_loss_can_dip_below_one():
    """1 is the even-load value, not a lower bound: top-1, E=3, 90 % of tokens near-flat."""
    probs = torch.tensor([[0.34, 0.33, 0.33]] * 9 + [[0.05, 0.05, 0.9]])
    chosen = probs.argmax(-1, keepdim=True)
    assert balance_loss(probs, chosen, 3).item() < 0.96


def test_the_bounds_reject_impossible_routing():
    with pytest.raises(ValueError):
        max_load_cv(4, 5)
    with pytest.raises(ValueError):
        max_balance_loss(4, 0)


def test_expert_load_by_group(tiny_corpus):
    cfg = _tiny_cfg(tiny_corpus, n_experts=4, top_k=1, d_expert=16)
    model = MoETransformer(cfg)
    gen = torch.Generator().manual_seed(0)
    batches = [tiny_corpus.batch("val", 2, 16, gen) for _ in range(2)]
    load = expert_load(model, batches, tiny_corpus.group_names)
    everything = load[load["group"] == "all"].groupby("layer")["tokens"].sum()
    assert (everything == 2 * 2 * 16).all()
    per_group = load[load["group"] != "all"].groupby("layer")["tokens"].sum()
    assert (per_group == everything).all()


def test_lr_schedule():
    s = TrainSettings(steps=100, lr=1.0, warmup_steps=10, min_lr_ratio=0.1)
    assert s.lr_at(0) == pytest.approx(0.1)
    assert s.lr_at(9) == pytest.approx(1.0)
    assert s.lr_at(100) == pytest.approx(0.1)
    assert 0.1 < s.lr_at(50) < 1.0


# --- sweeps and their cache -------------------------------------------------------------------


def test_sweep_caches_runs(tmp_path, tiny_corpus):
    cfgs = {
        "dense": _tiny_cfg(tiny_corpus, d_ff=32),
        "moe": _tiny_cfg(tiny_corpus, n_experts=4, top_k=1, d_expert=32),
    }
    kw = dict(corpus=tiny_corpus, settings=SHORT, seeds=(0, 1), cache_dir=tmp_path,
              progress=False)
    first = sweep.sweep("t", cfgs, **kw)
    assert len(first) == 4 and not first["cached"].any()
    assert first["label"].tolist() == ["dense", "dense", "moe", "moe"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "t.curves.csv", "t.load.csv", "t.runs.csv"
    ]
    again = sweep.sweep("t", cfgs, **kw)
    assert again["cached"].all()
    assert again["val_loss"].to_numpy() == pytest.approx(first["val_loss"].to_numpy(), rel=1e-5)
    curves = sweep.curves("t", again, cache_dir=tmp_path)
    assert set(curves["label"]) == {"dense", "moe"} and curves["step"].max() == 12
    loads = sweep.expert_loads("t", again, cache_dir=tmp_path)
    assert set(loads["label"]) == {"moe"}
    # a new seed is a cache miss that trains; the old runs stay cached
    more = sweep.sweep("t", cfgs, **{**kw, "seeds": (0, 2)})
    assert more["cached"].tolist() == [True, False, True, False]
    assert len(sweep._read(tmp_path / "t.runs.csv")) == 6


def test_run_key_ignores_labels_but_not_settings(tiny_corpus):
    cfg = _tiny_cfg(tiny_corpus, d_ff=32)
    key = sweep.run_key(cfg, SHORT, 0, tiny_corpus)
    assert sweep.run_key(cfg.replace(name="other"), SHORT, 0, tiny_corpus) == key
    assert sweep.run_key(cfg, SHORT, 1, tiny_corpus) != key
    assert sweep.run_key(cfg.replace(d_ff=64), SHORT, 0, tiny_corpus) != key
    changed = TrainSettings(**{**SHORT.to_dict(), "lr": 1e-3})
    assert sweep.run_key(cfg, changed, 0, tiny_corpus) != key


@pytest.mark.parametrize("name", list(sweep.SWEEPS))
def test_named_sweeps_are_cached(name):
    """The chapter must not train: every run of the book's sweeps is in the committed cache."""
    spec = sweep.SWEEPS[name]()
    corpus = data.get_corpus(spec["corpus"])
    runs = sweep._read(sweep.CACHE_DIR / f"{name}.runs.csv")
    assert not runs.empty, f"no cache for {name}: python -m moelaws.torchmoe.sweep --run {name}"
    if corpus.name == "pydoc" and set(runs["corpus_fingerprint"]) != {corpus.fingerprint}:
        pytest.skip("this Python's pydoc_data differs from the one the cache was made with")
    settings = spec.get("settings") or TrainSettings()
    for cfg in spec["configs"].values():
        cfg, s = cfg if isinstance(cfg, tuple) else (cfg, settings)
        for seed in spec["seeds"]:
            assert sweep.run_key(cfg, s, seed, corpus) in set(runs["key"])


# --- benchmark ---------------------------------------------------------------------------------


def test_bench_json_runs(capsys):
    args = ["--json", "--sweep", "--experts", "4", "--steps", "1", "--warmup", "0", "--rounds", "1",
            "--batch", "2", "--d-model", "32", "--no-gpu", "--headline-rounds", "0"]
    assert bench.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    cpu = report["cpu"]
    assert {r["dispatch"] for r in cpu["results"]} == {"-", *available_dispatches()}
    assert cpu["dense_tokens_per_s"] > 0
    assert all(r["error"] == "" for r in cpu["results"])
    assert report["moe_over_dense_e32"] is None  # E=32 not measured here
    assert cpu["tokens_per_step"] == 2 * 64


def test_bench_tokens_per_step_must_fill_whole_sequences():
    with pytest.raises(ValueError, match="multiple"):
        bench.measure(experts=[4], steps=1, warmup=0, rounds=1, tokens_per_step=100,
                      d_model=32, progress=False)


def test_bench_configs_have_equal_active_expert_width():
    cfgs = bench.bench_configs((8, 32))
    dense = cfgs["dense"]
    for name, cfg in cfgs.items():
        if name != "dense":
            assert cfg.top_k * cfg.d_expert == dense.d_ff
            # equal active FLOPs up to the router's 2·d·E per MoE layer
            fwd = arch.flops(cfg, "exact", training=False)
            extra = fwd - arch.flops(dense, "exact", training=False)
            assert extra == 2 * cfg.d_model * cfg.n_experts * cfg.n_layers


# --- refusals: real-size configs, impossible top-k, empty batches -----------------------------


def test_real_size_config_is_refused_before_allocating() -> None:
    from moelaws import arch
    from moelaws.torchmoe import MAX_PARAMS, MoETransformer

    with pytest.raises(ValueError, match="max_params"):
        MoETransformer(arch.preset("Mixtral-8x7B"))
    tiny = CONFIGS[next(iter(CONFIGS))]
    size = sum(p.numel() for p in MoETransformer(tiny).parameters())
    assert size < MAX_PARAMS
    with pytest.raises(ValueError, match="limit"):
        MoETransformer(tiny, max_params=size - 1)
    assert sum(p.numel() for p in MoETransformer(tiny, max_params=size).parameters()) == size


@pytest.mark.parametrize("top_k", [0, -1, 5, 1.5, True])
def test_route_refuses_an_impossible_top_k(top_k) -> None:
    from moelaws.torchmoe import route

    with pytest.raises(ValueError, match="top_k"):
        route(torch.zeros(3, 4), top_k)


@pytest.mark.parametrize("renormalize", [False, True])
def test_routed_top_k_routes_every_layer_and_restores_each_own_k(renormalize) -> None:
    cfg = MoEConfig(n_layers=2, d_model=16, n_heads=2, n_experts=4, top_k=2, d_expert=16,
                    vocab_size=11, context_length=8)
    torch.manual_seed(0)
    model = MoETransformer(cfg, renormalize=renormalize).eval()
    x = torch.randint(0, 11, (2, 8))
    with torch.no_grad():
        before = model(x).logits
    for k in (1, 3, 4):
        built = MoETransformer(cfg.replace(top_k=k), renormalize=renormalize).eval()
        built.load_state_dict(model.state_dict())
        with torch.no_grad(), model.routed_top_k(k) as same:
            assert same is model and [m.top_k for m in model.moe_layers()] == [k, k]
            torch.testing.assert_close(model(x).logits, built(x).logits)
            assert not torch.allclose(model(x).logits, before)
    with torch.no_grad():
        torch.testing.assert_close(model(x).logits, before, rtol=0, atol=0)
    model.moe_layers()[1].top_k = 1
    with model.routed_top_k(4):
        with pytest.raises(RuntimeError, match="evaluation"):
            model(x)
        with model.routed_top_k(3):
            pass
        with pytest.raises(RuntimeError, match="evaluation"):
            model(x)
    model(x)
    assert [m.top_k for m in model.moe_layers()] == [2, 1]
    with pytest.raises(RuntimeError, match="inside"), model.routed_top_k(3):
        raise RuntimeError("inside")
    assert [m.top_k for m in model.moe_layers()] == [2, 1]
    assert [m.renormalize for m in model.moe_layers()] == [renormalize] * 2
    for bad in (0, 5, 1.5, 2.0, True, None, "2"):
        with pytest.raises(ValueError, match="top-k"), model.routed_top_k(bad):
            pass
    dense = MoETransformer(cfg.replace(n_experts=0, top_k=0, d_expert=0, d_ff=32))
    with pytest.raises(ValueError, match="no MoE layer"), dense.routed_top_k(1):
        pass


def test_router_losses_refuse_an_empty_batch() -> None:
    from moelaws.torchmoe import balance_loss, route, z_loss

    probs, indices, _ = route(torch.zeros(0, 4), 2)
    with pytest.raises(ValueError, match="empty"):
        balance_loss(probs, indices, 4)
    with pytest.raises(ValueError, match="empty"):
        z_loss(torch.zeros(0, 4))
    probs, indices, _ = route(torch.randn(5, 4), 2)
    assert torch.isfinite(balance_loss(probs, indices, 4))


def test_group_ngram_baselines_order_and_reach_the_oracle():
    """Chapter 1's first-order baseline: more context helps, and the second order is the table."""
    corpus = data.synthetic_corpus(train_docs=1024, val_docs=64)
    losses = [data.group_ngram_loss(corpus, order) for order in range(3)]
    assert losses[0] > losses[1] > losses[2]
    assert abs(losses[0] - math.log(16)) < 0.05  # 16 symbols per language, near-uniform
    assert 0 < losses[2] - corpus.floor < 0.1
    with pytest.raises(ValueError):
        data.group_ngram_loss(data.pydoc_corpus(), 1)
    with pytest.raises(ValueError):
        data.group_ngram_loss(corpus, -1)


def test_raw_gate_weights_shrink_the_routed_output_at_initialisation():
    """Chapter 1: raw top-k softmax weights make a fresh MoE layer's output about E/k smaller."""
    dense_cfg = MoEConfig(d_ff=128, **TINY)
    moe_cfg = MoEConfig(n_experts=16, top_k=2, d_expert=64, **TINY)
    h = torch.randn(2048, TINY["d_model"], generator=torch.Generator().manual_seed(0))

    def rms(cfg, renormalize=False):
        torch.manual_seed(0)
        ffn = MoETransformer(cfg, renormalize=renormalize).blocks[0].ffn
        with torch.no_grad():
            out = ffn(h)
        return (out[0] if isinstance(out, tuple) else out).pow(2).mean().sqrt().item()

    dense, raw, renorm = rms(dense_cfg), rms(moe_cfg), rms(moe_cfg, renormalize=True)
    assert dense / raw > 0.5 * 16 / 2
    assert 1 < dense / renorm < dense / raw / 4
