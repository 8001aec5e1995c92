"""The registry's heuristic (tessel/jit/registry.py) on shapes whose best tile the H200 measured
(bench/RESULTS.md): it must pick that tile, and say why. No GPU needed."""

import pytest

from tessel.jit import registry

SMS = 132


def chosen(m, n, k, element="bf16", layout_b="col", epilogue="linear", persistent_only=True):
    """The model's tile among the persistent (data-parallel) kernels run 3 measured, or all."""
    candidates = [c for c in registry.hopper_configs(element, element, "row", layout_b, epilogue)
                  if c.scheduler == "persistent" or not persistent_only]
    config, reason = registry.choose(candidates, m, n, k, SMS)
    return (config.tile[:2], config.kernel_schedule), reason


# Each the fastest data-parallel tile on the H200 by more than 1%, through tessel.gemm's launch
# with D through TMA (bench/runs/2026-12-01_h200/run6_front_door.md).
@pytest.mark.parametrize("shape, tile", [
    ((4096, 4096, 4096), ((128, 256), "cooperative")),     # 4 even waves of the widest tile
    ((16384, 1024, 4096), ((128, 256), "cooperative")),
    ((8192, 8192, 256), ((128, 128), "pingpong")),         # short K: the epilogue hides under the other warpgroup
    ((6144, 3000, 4096), ((128, 192), "cooperative")),     # ragged N: 3000 = 15.6 x 192, 11.7 x 256
    ((3000, 5120, 1536), ((128, 192), "cooperative")),
    ((128, 6144, 4096), ((64, 128), "pingpong")),          # few tiles: 96 SMs at work, not 24 (2026-12-07b_h100)
    ((16, 28672, 8192), ((128, 256), "cooperative")),      # decode bound by the weights' bytes
])
def test_measured_best_tiles(shape, tile):
    got, reason = chosen(*shape)
    assert got == tile, reason
    assert f"{tile[0][0]}x{tile[0][1]} {tile[1]}" in reason and "wave" in reason


def test_sixty_four_tokens_take_the_sixty_four_row_tile():
    """64-127 tokens run whichever problem the estimate says is faster: 64x64 ping-pong tiles as
    given where the weights have few rows (bench/runs/2026-12-06c_h100 runs 3-4: 0.96-1.14x
    torch.matmul where 128x64 ran 0.79-1.01), 128x64 on D^T where they have many; fewer than 64
    tokens stay on D^T."""
    for shape in ((128, 4096, 14336), (64, 4096, 14336), (64, 8192, 8192), (64, 4096, 4096)):
        choice = oriented(*shape)
        assert not choice.transpose_d and choice.config.tile == (64, 64, 64), (shape, choice.reason)
        assert choice.config.kernel_schedule == "pingpong" and "64x64 pingpong" in choice.reason
        assert ("D^T's problem" in choice.reason) == (shape[0] < 128)  # 128 tokens fill every tile: no D^T
    for shape in ((32, 14336, 4096), (96, 4096, 14336)):
        choice = oriented(*shape)
        assert choice.transpose_d and choice.config.tile == (128, 64, 64), (shape, choice.reason)
    # Where the weights have many rows, 64x128 tiles as given fill the SMs as D^T's 128x64 do
    # (bench/runs/2026-12-07b_h100, run 7: 0.98-0.99 against 0.985 at 64x14336x4096, 1.02-1.03
    # against 1.016 at 64x28672x8192), and hide their epilogues.
    for shape in ((64, 14336, 4096), (64, 28672, 8192)):
        choice = oriented(*shape)
        assert not choice.transpose_d and choice.config.tile == (64, 128, 64), (shape, choice.reason)
    # 48-63 tokens fill three quarters of a 64-wide tile: 64x64 on D^T where the weights have few
    # rows (run 12: 0.94 at 48x4096x4096 and 1.01 at 56x4096x14336, against 0.75 and 0.94 before).
    for shape in ((48, 4096, 4096), (56, 4096, 14336)):
        choice = oriented(*shape)
        assert choice.transpose_d and choice.config.tile == (64, 64, 64), (shape, choice.reason)


@pytest.mark.parametrize("shape, tile", [
    ((160, 4096, 14336), (64, 128)), ((192, 4096, 4096), (64, 128)), ((192, 4096, 14336), (64, 128)),
    ((256, 4096, 14336), (64, 128)), ((320, 6144, 4096), (64, 128)),
    ((160, 6144, 4096), (64, 192)), ((192, 28672, 4096), (64, 192)), ((320, 4096, 4096), (64, 192)),
])
def test_mid_token_counts_take_the_64_row_ping_pong_tiles(shape, tile):
    """129-320 tokens: 64x128 ping-pong where its tiles fill one wave, 64x192 where 64x128's would
    spill into a second or rows past M slow the 128-row tiles (bench/runs/2026-12-07b_h100, runs
    6-10, H100, ratio to torch.matmul: 192x4096x4096 0.94-0.97 against 0.60 for the 128x64 chosen
    before, 192x4096x14336 1.39 against 0.75; 160x6144x4096 0.80 against 0.56 for 128x128,
    320x4096x4096 0.84 against 0.70)."""
    choice = oriented(*shape)
    assert not choice.transpose_d and choice.config.tile[:2] == tile and choice.config.kernel_schedule == "pingpong", choice.reason


def test_rows_off_sectors_keep_a_tile_with_a_twin():
    """Where A's or B's rows start off 32-byte sectors, tiles without a cluster twin that fits
    the problem are modelled hopper_tiles.def's straddle_cost slower: 1000^3 runs 128x64 (then its
    1x2 twin: 0.80 of torch) and not 64x128 (0.66 there, 2026-12-07b_h100 run 7), which it takes
    with rows on sectors."""
    candidates = registry.hopper_configs("bf16", "bf16", "row", "col")
    aligned = registry.choose_oriented(candidates, candidates, 1000, 1000, 1000, SMS)
    assert aligned.config.tile == (64, 128, 64), aligned.reason
    straddling = registry.refine(registry.choose_oriented(candidates, candidates, 1000, 1000, 1000, SMS, True), True, 1000, 1000, SMS)
    assert straddling.config.tile == (128, 64, 64) and straddling.config.cluster == (1, 2, 1), straddling.reason


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (16, 4096, 4096)])
def test_few_tiles_go_to_stream_k(shape):
    """With fewer tiles than SMs (decode) the K loop is divided among CTAs; with many, never."""
    candidates = registry.hopper_configs("bf16", "bf16", "row", "col")
    assert registry.choose(candidates, *shape, SMS)[0].scheduler == "stream_k"
    assert registry.choose(candidates, 4096, 4096, 4096, SMS)[0].scheduler == "persistent"
    assert "stream-K" in registry.choose(candidates, *shape, SMS)[1]


def test_stream_k_is_shipped_for_the_linear_combination_only():
    assert {c.scheduler for c in registry.hopper_configs("f16", "f16", "row", "row")} == {"persistent", "stream_k"}
    assert {c.scheduler for c in registry.hopper_configs("f16", "f16", "row", "row", "gelu")} == {"persistent"}


def test_the_reason_names_the_bound():
    assert "streaming the operands" in chosen(16, 28672, 8192)[1]
    assert "its waves of tiles" in chosen(4096, 4096, 4096)[1]


def test_fused_kinds_choose_among_their_own_kernels():
    for epilogue in ("relu", "gelu", "silu"):
        config, _ = registry.choose(registry.hopper_configs("f16", "f16", "row", "row", epilogue), 4096, 14336, 4096, SMS)
        assert config.epilogue == epilogue and config.element == "f16" and config.layout_b == "row"


def test_kinds_outside_the_full_set_have_the_default_only():
    only = registry.hopper_configs("bf16", "f32", "row", "col")
    assert len(only) == 1 and only[0].tile == (128, 256, 64)
    assert registry.choose(only, 16, 4096, 4096, SMS)[1] == "the only kernel shipped for this kind of problem"
    assert registry.hopper_configs("bf16", "bf16", "col", "col", "relu") == []


def test_estimate_counts_partial_waves_as_whole():
    config = registry.hopper_configs("bf16", "bf16", "row", "col")[0]  # 128x256
    one = registry.estimate(config, 128 * 12, 256 * 11, 4096, SMS)       # 132 tiles: one wave
    two = registry.estimate(config, 128 * 12, 256 * 11 + 1, 4096, SMS)   # 144 tiles: two
    assert (one.tiles, one.waves, two.tiles, two.waves) == (132, 1, 144, 2)
    assert two.compute == pytest.approx(2 * one.compute)


# ---- tuning: the on-disk cache of measured winners ------------------------------------------------
def test_tuning_cache_round_trip(tmp_path, monkeypatch):
    from tessel.jit import tuning
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    tuning.forget()
    key = tuning.key("NVIDIA H200", 132, "0.1.0", ("bf16", "bf16", "row", "col", "linear"), (16, 4096, 4096))
    assert key == "NVIDIA H200|132|0.1.0|bf16|bf16|row|col|linear|16x4096x4096"
    assert tuning.lookup(key) is None
    tuning.store(key, "tessel_sm90_gemm_x", {"tessel_sm90_gemm_x": 12.5})
    tuning.forget()  # as a new process would: from the file
    assert tuning.lookup(key) == "tessel_sm90_gemm_x" and (tmp_path / tuning.FILE).is_file()
    other = key.replace("132", "114")  # another GPU does not see it
    assert tuning.lookup(other) is None
    (tmp_path / tuning.FILE).write_text("not json")
    tuning.forget()
    assert tuning.lookup(key) is None  # a damaged file is ignored, not an error
    tuning.forget()


def test_fastest_takes_turns_and_medians():
    from tessel.jit import tuning
    calls = []
    times = {"a": [5.0, 5.0, 50.0], "b": [4.0, 4.5, 4.0], "c": [6.0, 6.0, 6.0]}

    def time_us(k):
        calls.append(k)
        return times[k]
    best, medians = tuning.fastest(["a", "b", "c"], time_us)
    assert best == 1 and medians == [5.0, 4.0, 6.0]
    assert calls == ["a", "b", "c"] * 3  # in turns, three rounds


def test_choice_prefers_a_tuned_kernel(tmp_path, monkeypatch):
    """tessel.gemm's choice reads the tuning cache before the heuristic."""
    import importlib
    from tessel.jit import tuning
    g = importlib.import_module("tessel.gemm")  # the module (tessel.gemm the attribute is the function)
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    tuning.forget()
    monkeypatch.setattr(g, "_tuning_key", lambda kind, device, shape: "K|" + "x".join(map(str, shape)))
    candidates = registry.hopper_configs("bf16", "bf16", "row", "col")
    kind = ("bf16", "bf16", "row", "col", "linear")
    assert g._tuned(candidates, candidates, kind, 0, 16, 4096, 4096) is None  # nothing cached, tuning off
    tuning.store("K|16x4096x4096", candidates[2].name, {})
    choice = g._tuned(candidates, candidates, kind, 0, 16, 4096, 4096)
    assert choice.config == candidates[2] and not choice.transpose_d and choice.reason.startswith("tuned on this GPU")
    assert g._tuned(candidates[:1], [], kind, 0, 16, 4096, 4096) is None  # a single kernel: nothing to tune
    # A kernel tuned on D^T's problem runs there again, where D may be transposed; elsewhere the
    # entry names no candidate and the heuristic decides.
    tuning.store("K|16x4096x4096", candidates[4].name + " on D^T", {})
    choice = g._tuned(candidates, candidates, kind, 0, 16, 4096, 4096)
    assert choice.config == candidates[4] and choice.transpose_d and choice.reason.endswith("on D^T's problem")
    assert g._tuned(candidates, [], kind, 0, 16, 4096, 4096) is None
    tuning.forget()


def test_tuning_times_both_problems_only_for_decode():
    """tessel.tune's candidates: D^T's problem joins where M is short of a tile's rows."""
    import importlib
    g = importlib.import_module("tessel.gemm")
    candidates = registry.hopper_configs("bf16", "bf16", "row", "col")
    assert any(on_dt for _, on_dt in g._oriented(candidates, candidates, 16, 4096, 4096, SMS)[:3])
    assert not any(on_dt for _, on_dt in g._oriented(candidates, candidates, 4096, 4096, 4096, SMS))


# ---- python -m tessel.explain: the choice for a shape list, without a GPU ---------------------------
def test_explain_prints_the_choice_and_reason(capsys):
    from tessel import explain
    assert explain.main(["4096x4096x4096", "32x4096x4096", "16x4096x4096", "--sms", "132"]) == 0
    out = capsys.readouterr().out
    assert "4096x4096x4096: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn\n" in out
    assert "32x4096x4096: tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_tn_streamk on D^T" in out and "stream-K" in out
    assert "16x4096x4096: tessel_sm90_gemm_small_n_tma_bf16_n16_4box on D^T" in out and "small-N TMA ring" in out


def test_explain_fp8_is_scaled_mms_choice(capsys):
    """--dtype e4m3: tessel.scaled_mm's kernel, bf16 out. Up to 16 tokens the e4m3 small-N ring on
    D^T: with promoted accumulation always, with fast accumulation where the 128x64 tile would
    leave 3/4 of the SMs idle or K is 16384 or more (kernel::small_n_tma_takes_fp8); elsewhere
    fast accumulation runs decode on the narrow tile on D^T, and promoted past 16 tokens keeps its
    128x128 kernel; e5m2 has no ring."""
    from tessel import explain
    assert explain.main(["16x4096x4096", "16x14336x4096", "32x14336x4096", "8192x14336x4096", "--dtype", "e4m3", "--fast-accum"]) == 0
    out = capsys.readouterr().out
    assert "16x4096x4096: tessel_sm90_gemm_small_n_tma_e4m3_n16_4box on D^T" in out and "small-N TMA ring" in out
    assert "16x14336x4096: tessel_sm90_gemm_e4m3_e4m3_bf16_128x64x128_c1x1_8stage_coop_tn on D^T" in out
    assert "32x14336x4096: tessel_sm90_gemm_e4m3_e4m3_bf16_128x64x128_c1x1_8stage_coop_tn on D^T" in out
    assert "8192x14336x4096: tessel_sm90_gemm_e4m3_e4m3_bf16_128x256x128_c1x1_4stage_coop_tn\n" in out
    assert explain.main(["16x4096x4096", "16x14336x4096", "32x14336x4096", "--dtype", "e4m3"]) == 0
    out = capsys.readouterr().out
    assert "16x4096x4096: tessel_sm90_gemm_small_n_tma_e4m3_n16_4box on D^T" in out
    assert "16x14336x4096: tessel_sm90_gemm_small_n_tma_e4m3_n16_8box_16row on D^T" in out
    assert "32x14336x4096: tessel_sm90_gemm_e4m3_e4m3_bf16_128x128x128_c1x1_6stage_coop_promoted_tn" in out
    assert explain.main(["16x28672x16384", "8x2056x528", "--dtype", "e4m3"]) == 0  # rows of 16 KB; 16-row blocks
    out = capsys.readouterr().out
    assert "16x28672x16384: tessel_sm90_gemm_small_n_tma_e4m3_n16_8box_3stage on D^T" in out
    assert "8x2056x528: tessel_sm90_gemm_small_n_tma_e4m3_n8_8box_16row on D^T" in out
    assert explain.main(["16x4096x4096", "--dtype", "e5m2", "--fast-accum"]) == 0
    # 16 tokens fill a quarter of a 64-wide tile: 128x64 (dispatch's detail::fills).
    assert "16x4096x4096: tessel_sm90_gemm_e5m2_e5m2_bf16_128x64x128_c1x1_8stage_coop_tn on D^T" in capsys.readouterr().out
    assert explain.main(["16x14336x4096", "--dtype", "e4m3", "--layout-b", "row"]) == 2
    assert "reads B column-major" in capsys.readouterr().err
    assert explain.main(["16x14336x4096", "--fast-accum"]) == 2
    assert "--fast-accum is FP8's" in capsys.readouterr().err


def test_promoted_fp8_width_follows_the_waves(capsys):
    """The promoted per-tensor FP8 kernel runs 128x192 tiles where their waves, at
    WIDE_PROMOTED_RATE, take less time than 128x128's (config.promoted_wide_tile), on 132 SMs:
    8192x7168 19 waves against 28, so wide; 4096x7168 10 against 14 (1429 against 1400 columns of
    work per SM at the rate), so 128x128; one row of tiles at 28672 columns, two waves either way."""
    from tessel import explain
    from tessel.jit.config import WIDE_PROMOTED_RATE, promoted_wide_tile
    assert 1.0 < WIDE_PROMOTED_RATE < 1.2
    assert promoted_wide_tile(8192, 7168, 132) and promoted_wide_tile(4096, 18432, 132) and promoted_wide_tile(256, 8640, 132)
    assert not promoted_wide_tile(4096, 7168, 132) and not promoted_wide_tile(128, 28672, 132) and not promoted_wide_tile(0, 0, 132)
    assert explain.main(["8192x7168x7168", "4096x7168x4096", "--dtype", "e4m3"]) == 0
    out = capsys.readouterr().out
    assert "8192x7168x7168: tessel_sm90_gemm_e4m3_e4m3_bf16_128x192x128_c1x1_4stage_coop_promoted_tn\n" in out
    assert "4096x7168x4096: tessel_sm90_gemm_e4m3_e4m3_bf16_128x128x128_c1x1_6stage_coop_promoted_tn\n" in out
    assert "on 128x192 tiles, whose waves at" in out and "on 128x128 tiles, whose waves take less time" in out
    # Fast accumulation has its own tiles; the rule is the promoted kernel's alone.
    assert explain.main(["8192x7168x7168", "--dtype", "e4m3", "--fast-accum"]) == 0
    assert "promoted" not in capsys.readouterr().out


def test_explain_refuses_bad_arguments_with_one_line(capsys):
    from tessel import explain
    with pytest.raises(SystemExit) as e:
        explain.main(["4096x4096"])
    assert e.value.code == 2 and "write M x N x K as three positive integers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        explain.main(["8x8x8", "--sms", "0"])
    assert "--sms 0" in capsys.readouterr().err
    assert explain.main(["8x8x8", "--dtype", "int8"]) == 2
    assert "element type 'int8'" in capsys.readouterr().err


def test_warmup_and_tune_refuse_bad_shapes_before_any_work():
    import tessel
    for bad in [(True, 4096, 4096), (16, 4096), (16, 0, 4096), (16.0, 4096, 4096), "16x4096x4096"]:
        with pytest.raises(ValueError, match="give \\(M, N, K\\), three positive integers"):
            tessel.warmup([bad], device=0)
    with pytest.raises(ValueError, match="layout_b 'diagonal'"):
        tessel.warmup([(16, 16, 16)], layout_b="diagonal", device=0)
    with pytest.raises(ValueError, match="top True"):
        tessel.tune([(16, 16, 16)], top=True, device=0)


def oriented(m, n, k, element="bf16"):
    """The choice for x @ W.t() without a C: D^T = W x^T is the same kind (A row, B col)."""
    candidates = registry.hopper_configs(element, element, "row", "col")
    return registry.choose_oriented(candidates, candidates, m, n, k, SMS)


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (16, 28672, 8192), (48, 8192, 8192), (32, 14336, 4096)])
def test_decode_runs_on_d_transposed(shape):
    """A few tokens against many weight rows: the weights become the tiles' rows (D^T's problem),
    and the reason says so with D^T's shape."""
    m, n, k = shape
    choice = oriented(m, n, k)
    assert choice.transpose_d, choice.reason
    assert choice.reason.startswith(f"D^T = B^T A^T ({n}x{m}x{k}"), choice.reason


@pytest.mark.parametrize("shape", [(128, 6144, 4096), (64, 8192, 8192), (4096, 4096, 4096), (16, 48, 4096), (1000, 1000, 1000)])
def test_full_tiles_and_narrow_weights_stay_as_given(shape):
    """M of the narrowest tile's rows (64) or more, or N short of them (16 x 48), keeps the problem."""
    assert not oriented(*shape).transpose_d


def test_no_transposed_kernels_no_transposition():
    """Where D cannot be transposed (a C, a batch) the caller passes no transposed candidates."""
    candidates = registry.hopper_configs("bf16", "bf16", "row", "col")
    choice = registry.choose_oriented(candidates, [], 16, 28672, 8192, SMS)
    assert not choice.transpose_d and not choice.reason.startswith("D^T")


# The measured best of each decode shape on D^T's problem, among every registry kernel in both
# problems (bench/runs/2026-12-04b_h200, run 3); and 128 tokens, whose problem stays as given.
# (64 tokens, measured best there on 128x64, now run 64x64 as given: the test above.)
@pytest.mark.parametrize("shape, scheduler", [
    ((16, 4096, 4096), "stream_k"),     # 32 tiles of D^T: the K loop over every SM
    ((1, 14336, 4096), "persistent"),
])
def test_decode_tiles_on_d_transposed(shape, scheduler):
    choice = oriented(*shape)
    assert choice.transpose_d and choice.config.tile[:2] == (128, 64) and choice.config.scheduler == scheduler, choice.reason


def test_full_tile_rows_with_few_tiles_stay_data_parallel():
    choice = oriented(128, 6144, 4096)
    assert not choice.transpose_d and choice.config.tile[:2] == (64, 128) and choice.config.scheduler == "persistent"


def test_kinds_without_a_narrow_tile_stay_as_given():
    """Promoted FP8 ships its 128x128 tile only: on D^T's problem the tokens would be the N of a
    tile twice as wide as the 64 that pays, so decode keeps its problem."""
    fp8 = registry.hopper_configs("e4m3", "bf16", "row", "col", promoted=True)
    assert not registry.transposes(16, 28672, fp8)
    assert not registry.choose_oriented(fp8, fp8, 16, 28672, 8192, SMS).transpose_d
    bf16 = registry.hopper_configs("bf16", "bf16", "row", "col")
    assert registry.transposes(16, 28672, bf16)


@pytest.mark.parametrize("shape, tile, on_dt", [
    ((16, 14336, 4096), (128, 64, 128), True),   # 112 tiles of D^T on 128x64
    ((1, 4096, 4096), (128, 64, 128), True),     # one token fills no 64-wide tile: 128x64 (detail::fills)
    ((48, 4096, 4096), (64, 64, 128), True),     # 48 fill three quarters: 64 tiles of 64x64 (run 7: 0.906x torch)
    ((96, 4096, 14336), (128, 64, 128), True),   # 96 fill half of the second: D^T's 128x64 (run 6: 0.864 against 0.764)
    ((64, 8192, 8192), (64, 64, 128), False),    # 64 tokens fill the 64-row tile (run 6: 0.988x torch)
    ((64, 4096, 14336), (64, 64, 128), False),   # 1.005x torch, where D^T's 128x64 stream-K ran 0.84
    ((64, 14336, 4096), (128, 64, 128), True)])  # many weight rows: D^T's 128x64 fills the SMs
def test_fast_fp8_decode_runs_on_its_narrow_tiles(shape, tile, on_dt):
    """FP8 with fast accumulation ships 128x64 and 64x64 ping-pong beside 128x256: decode runs
    D^T's problem on them (bench/NOTES.md, "FP8 at decode"), and from 64 tokens the problem the
    estimate says is faster (bench/runs/2026-12-06c_h100, run 6); prefill keeps the wide tile."""
    fp8 = registry.hopper_configs("e4m3", "bf16", "row", "col")
    assert [c.tile for c in fp8] == [(128, 256, 128), *registry.FP8_FAST_TILES]
    assert registry.FP8_FAST_TILES == (registry.FP8_MID_TILE, registry.FP8_192_TILE, registry.FP8_NARROW_TILE,
                                       registry.FP8_PINGPONG_TILE)
    choice = registry.choose_oriented(fp8, fp8, *shape, SMS)
    assert choice.transpose_d == on_dt and choice.config.tile == tile, choice
    prefill = registry.choose_oriented(fp8, fp8, 8192, 14336, 4096, SMS)
    assert not prefill.transpose_d and prefill.config.tile == (128, 256, 128), prefill
    # Promoted accumulation keeps its one kernel.
    assert len(registry.hopper_configs("e4m3", "bf16", "row", "col", promoted=True)) == 1


@pytest.mark.parametrize("shape, tile", [
    ((512, 4096, 4096), (128, 128, 128)), ((1536, 4096, 4096), (128, 128, 128)),
    ((768, 4096, 4096), (128, 192, 128)), ((256, 4096, 14336), (128, 64, 128)),
    ((1024, 4096, 4096), (128, 256, 128)), ((2048, 4096, 4096), (128, 256, 128)),
    ((8192, 7168, 18432), (128, 256, 128)), ((8192, 8192, 8192), (128, 256, 128)),
    ((3000, 5120, 1536), (128, 256, 128)), ((768, 14336, 4096), (128, 256, 128))])
def test_fast_fp8_mid_sizes_take_the_tile_that_evens_the_waves(shape, tile):
    """Between decode and prefill FP8 with fast accumulation takes the tile the H100 ran fastest
    (bench/runs/2026-12-05d_h100, runs 1 and 6): 128x128 where 128x256 leaves most of a wave
    empty and 128x64 needs a second (512 and 1536 tokens), 128x192 where its 132 tiles fill the
    wave 128x256's 96 leave a quarter empty (768x4096), 128x64 at 256 tokens, 128x256 from 2048 on,
    where it fills one wave (1024), and where 128x192 measured 1-1.5% slower (8192^3,
    3000x5120x1536)."""
    fp8 = registry.hopper_configs("e4m3", "bf16", "row", "col")
    choice = registry.choose_oriented(fp8, fp8, *shape, SMS)
    assert not choice.transpose_d and choice.config.tile == tile, choice


def test_fp8_is_modelled_at_its_own_rate_and_bytes():
    """FP8's tensor cores run twice the 16-bit rate and its operands are half the bytes: the same
    tile shape over the same K models half the mainloop time and half the DRAM time (so that
    tessel.explain's modelled microseconds are FP8's, not bf16's)."""
    from tessel.jit.config import GemmConfig
    bf16 = GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 256, 64))
    fp8 = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 256, 128))
    a, b = registry.estimate(bf16, 4096, 8192, 16384, SMS), registry.estimate(fp8, 4096, 8192, 16384, SMS)
    assert (a.tiles, a.waves) == (b.tiles, b.waves)
    assert b.memory == pytest.approx(a.memory / 2) and b.compute == pytest.approx(a.compute / 2, rel=0.02), (a, b)



def test_cluster_twins_share_the_larger_operand():
    """hopper_tiles.def's TESSEL_CLUSTER_TWIN rows: 128x256 and 128x192 cooperative shipped on
    2x1 clusters (B shared), 128x64 on 1x2 (A shared), for the 16-bit kinds, every epilogue; where
    B's stage cannot be split between the two CTAs (128x192 with B N-major) 128x256's; none for
    stream-K, 128x128 ping-pong or FP8. The twins are prebuilt but never the heuristic's candidates."""
    assert registry.CLUSTER_TWINS == (((128, 256, 64), "cooperative", (2, 1, 1)), ((128, 192, 64), "cooperative", (2, 1, 1)),
                                      ((128, 64, 64), "cooperative", (1, 2, 1)))
    by_tile = {(c.tile, c.scheduler): c for c in registry.hopper_configs("bf16", "bf16", "row", "col")}
    twin = registry.cluster_twin(by_tile[((128, 256, 64), "persistent")])
    assert twin.cluster == (2, 1, 1) and twin.tile == (128, 256, 64) and "_c2x1_" in twin.name
    assert registry.cluster_twin(by_tile[((128, 192, 64), "persistent")]).cluster == (2, 1, 1)
    narrow = registry.cluster_twin(by_tile[((128, 64, 64), "persistent")])
    assert narrow.cluster == (1, 2, 1) and "_128x64x64_c1x2_" in narrow.name
    for key in (((128, 128, 64), "persistent"), ((128, 64, 64), "stream_k")):
        assert registry.cluster_twin(by_tile[key]) is None
    row_b = {c.tile: c for c in registry.hopper_configs("bf16", "bf16", "row", "row")}
    assert registry.cluster_twin(row_b[(128, 256, 64)]).cluster == (2, 1, 1)
    # 3 boxes of B's 64 columns: no even split, so 128x256's twin
    assert registry.cluster_twin(row_b[(128, 192, 64)]) == registry.cluster_twin(row_b[(128, 256, 64)])
    gelu = registry.hopper_configs("bf16", "bf16", "row", "col", "gelu")[0]
    assert registry.cluster_twin(gelu).cluster == (2, 1, 1) and registry.cluster_twin(gelu).epilogue == "gelu"
    fp8 = registry.hopper_configs("e4m3", "bf16", "row", "col")[0]
    assert registry.cluster_twin(fp8) is None
    shipped = registry.configs()
    assert twin in shipped and narrow in shipped and registry.cluster_twin(row_b[(128, 256, 64)]) in shipped
    assert len(shipped) == len(set(shipped))  # 128x192's twin with B N-major is 128x256's, listed once
    assert all(c.cluster == (1, 1, 1) for c in registry.hopper_configs("bf16", "bf16", "row", "col"))


def test_explain_names_the_twin_where_dense_rows_straddle_sectors(capsys):
    """python -m tessel.explain assumes dense operands: K = 1000 (bf16 rows 2000 bytes apart)
    runs 128x256's 2x1-cluster twin and says why; K = 1008 the plain tile; B row-major with
    N = 1000 the twin too (B's rows); 1000^3's narrow tile its 1x2 twin; 32 tokens at K = 1000 on
    D^T's problem keep the narrow tile (one column tile: the twin would take two waves)."""
    from tessel import explain
    assert explain.main(["4096x4096x1000", "4096x4096x1008", "1000x1000x1000", "32x14336x1000"]) == 0
    out = capsys.readouterr().out
    assert "4096x4096x1000: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c2x1_" in out and "2x1-cluster twin" in out
    assert "4096x4096x1008: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_" in out
    assert "1000x1000x1000: tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x2_" in out and "1x2-cluster twin" in out
    assert "32x14336x1000: tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_" in out and "on D^T" in out
    # Twin or not, the reason says what the rows cost and how to avoid it; aligned rows, nothing.
    reasons = dict(zip(("1000", "1008", "1000^3", "decode"), out.split("\n")[1::2]))
    assert all("start off 32-byte sectors" in reasons[k] and "K padded" in reasons[k] for k in ("1000", "1000^3", "decode"))
    assert "twin" not in reasons["decode"]
    assert "sectors" not in reasons["1008"]
    assert explain.main(["--layout-b", "row", "4096x1000x4096"]) == 0
    assert "_128x256x64_c2x1_" in capsys.readouterr().out
