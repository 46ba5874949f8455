#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of analyze.py: parse the guest output lines of testdata/
(icount.log, cx3.log, test.ktap: a small made-up run whose figures are
worked out by hand below), and check the parsed records, the derived
figures and every target's verdict exactly. KTAP output, one result per
case; run by `make -C tools/testing/cxbell/unit run`.

testdata/: 6400 packets per point, no perf.log, so the residual bound of
a timed sim section is 60 + 10 = 70 insn. Per packet: dummy 230 / 69 / 67
at burst 1 / 32 / 64 (a repeat at burst 1, identical); e1000e 750 / 690 /
686; cx3-db path 2000 / 1000 / 950 with engine_ns 1400 / 550 / 520 and
dma_ns 100; cx3-bf one BlueFlame write short at burst 1; cx5 and
cx5-mpwqe at burst 32 with PCIe read bytes; cx5-mpwqe-inline whose queue
stopped once; the four XDP rows at burst 64; in cx3.log the q35 dummy
(70) and mlx4_en-norx (520), and a failed row.

testdata/real/icount.log: three @@bench lines of a real make bench run
(results 20261206-112117, burst 32: dummy, cx3-db, cx5-mpwqe) and a kernel
line, unchanged; their figures are that run's bench.csv cells.
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True	# no __pycache__ in the tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import analyze  # noqa: E402

DATA = os.path.join(HERE, "testdata")
N = 6400

# (key, name, met, figure) of each target, in table order
TARGETS = [
    ("one_ring_per_burst",
     "doorbells + BF posts per packet == 1/burst (queue never stops; rows "
     "cx3-db, cx3-bf, cx5, cx5-mpwqe, cx5-mpwqe-inline, mlx4_en-norx, every "
     "burst)", False,
     "cx3-bf@1: 6399x1 vs 6400 pkts; excluded (queue stopped): "
     "cx5-mpwqe-inline@32 (1 stop, 201 rings for 6400 pkts)"),
    # 1000 - 550 - 100 - 69 = 281; sections 2 + 1/32 + 2/32, x 70 = 146.6
    ("cx3_db_driver",
     "cxbell cx3 doorbell driver cost <= 120 insn/pkt at burst 32", False,
     "281 insn/pkt (lower bound after the timing residual: 134)"),
    ("cx3_db_below_e1000e",
     "cxbell cx3 doorbell driver cost below e1000e's at every burst", True,
     "every burst below"),
    ("cx3_db_vs_mlx5e",
     "cx3-db driver cost <= 312 insn/pkt at burst 32 (whole path about 10% "
     "below mlx5e's 421)", True,
     "281 insn/pkt, whole path 350 (floor 69)"),
    # 900 - 450 - 100 - 69
    ("cx5_mpwqe_vs_mlx5e",
     "cx5-mpwqe driver cost <= 232 insn/pkt at burst 32 (whole path about "
     "10% below mlx5e's 329)", False,
     "281 insn/pkt, whole path 350 (floor 69)"),
    # 700 - 400 - 0 - 69
    ("cx5_mpwqe_inline_vs_mlx5e",
     "cx5-mpwqe-inline driver cost <= 232 insn/pkt at burst 32 (whole path "
     "about 10% below mlx5e's 329)", True,
     "231 insn/pkt, whole path 300 (floor 69)"),
    ("cx3_db_burst1_below_e1000e",
     "cx3-db at burst 1 (default moderation) below e1000e", True,
     "270 vs 520 insn/pkt"),
    # 2100 - 1400 - 100 - 230 = 370 against 281: +31.7%
    ("opt1_burst1",
     "doorbell_opt 1 at burst 1 within 25% of burst 32", False,
     "burst 1: 370, burst 32: 281 insn/pkt (+32%)"),
    ("two_boots_identical",
     "two consecutive runs give identical instruction counts (bench/test: "
     "2 boots, short sweep)", True,
     "2/2 points identical: dummy burst 1: 230 guest insn/pkt in both runs "
     "(1472 us); cx3-db burst 32: 1000 guest insn/pkt in both runs (6400 us)"),
    # 96 + 60 + 4 + 8/32 -> 16 + 60 + 1/8 + 8/32
    ("mpwqe_pcie_in",
     "cx5 MPWQE: >= 25% fewer PCIe inbound bytes per packet at burst 32",
     True,
     "160.2 -> 76.4 B/pkt (-52%; MMIO + descriptor, data and doorbell "
     "record reads)"),
    ("mpwqe_driver",
     "cx5 MPWQE: >= 20% fewer driver instructions per packet at burst 32",
     True, "431 -> 281 insn/pkt (-35%)"),
    ("xdp_tx_doorbells",
     "XDP_TX: one doorbell per NAPI poll cuts doorbells per packet >= 16x "
     "at burst 64 (NAPI budget 64)", True,
     "1.0000 -> 0.0156 doorbells/pkt (64x)"),
    ("xdp_tx_gain",
     "XDP_TX: modelled rate gain of the batching within 15% of the "
     "published one (mlx5 \"RX refactoring and XDP support\", RFC 11/11: "
     "4.90 -> 7.50 Mpps, x1.53)", False,
     "x1.81 (5.45 -> 9.83 Mpps on the reference host; +18% vs the "
     "published gain)"),
    ("repeats", "repeats within one boot identical (informational)", True,
     "1/1 points"),
]
PREVIOUS = ("previous_dir",
            "identical to the previous results directory of the same "
            "commit (informational)", True,
            "22/22 points identical to a")


class Case:
    def __init__(self):
        self.diag = []

    def eq(self, what, got, want):
        if got != want:
            g, w = repr(got), repr(want)
            if len(g) + len(w) > 600:  # long texts: where they part
                i = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b),
                         min(len(g), len(w)))
                g, w = f"...{g[max(0, i - 40):i + 80]}", f"...{w[max(0, i - 40):i + 80]}"
            self.diag.append(f"{what}: got {g}, want {w}")


def record(res, row, burst):
    m = [c for c in res if c["row"] == row and c["burst"] == burst
         and c["rep"] == 1]
    return m[0] if m else {}


def t_parse(t):
    """@@bench lines only, numbers as ints, defaults, the q35 dummy."""
    runs = analyze.parse(os.path.join(DATA, "icount.log"))
    t.eq("icount.log records", len(runs), 20)
    t.eq("rows", sorted({r["row"] for r in runs}),
         ["cx3-bf", "cx3-db", "cx3-db-opt1", "cx5", "cx5-mpwqe",
          "cx5-mpwqe-inline", "dummy", "e1000e", "xdp-drop", "xdp-drop-f",
          "xdp-tx", "xdp-tx-pp"])
    r = [r for r in runs if r["row"] == "cx3-db" and r["burst"] == 32][0]
    for k, v in (("pkts", N), ("elapsed_ns", 1000 * N), ("ring", 1024),
                 ("size", 60), ("s.doorbells", N // 32),
                 ("s.engine_ns", 550 * N), ("a.dma_calls", 2 * N),
                 ("sweep", "burst"), ("rep", 1), ("boot", "main")):
        t.eq(f"cx3-db@32 {k}", r.get(k), v)
    t.eq("dummy repeats", sorted(r["rep"] for r in runs
                                 if r["row"] == "dummy" and r["burst"] == 1),
         [1, 2])
    cx3 = analyze.parse(os.path.join(DATA, "cx3.log"), "cx3")
    t.eq("cx3.log rows", [(r["row"], r["burst"], r["boot"]) for r in cx3],
         [("dummy-q35", 32, "cx3"), ("mlx4_en-norx", 32, "cx3")])
    t.eq("pause", cx3[1].get("pause"), "off")
    t.eq("failed", analyze.parse_failed(os.path.join(DATA, "cx3.log")),
         [("cx3-hw-norx", "port 2 not up under cxbell_mlx4")])
    t.eq("no failed in icount.log",
         analyze.parse_failed(os.path.join(DATA, "icount.log")), [])


def t_derive(t):
    """Per-packet figures, floors, residual bounds and XDP costs."""
    _, _, _, res, _, kc, kbound = analyze.load(DATA)
    t.eq("ktime cost", kc, None)
    t.eq("kbound", kbound, 70.0)
    want = {
        ("dummy", 1): dict(path_insn_pkt=230.0, driver_insn_pkt=0.0),
        ("e1000e", 1): dict(floor_insn_pkt=230.0, driver_insn_pkt=520.0),
        ("cx3-db", 1): dict(path_insn_pkt=2000.0, engine_insn_pkt=1400.0,
                            dma_insn_pkt=100.0, floor_insn_pkt=230.0,
                            driver_insn_pkt=270.0, residual_insn_pkt=350.0,
                            dbbf_pkt=1.0, doorbells_pkt=1.0, bf_pkt=0.0),
        ("cx3-db", 32): dict(driver_insn_pkt=281.0,
                             residual_insn_pkt=(2 + 3 / 32) * 70,
                             dbbf_pkt=1 / 32, napi_pkt=1 / 32),
        ("cx3-bf", 1): dict(driver_insn_pkt=320.0, bf_pkt=(N - 1) / N),
        ("cx5", 32): dict(driver_insn_pkt=431.0, pcie_in_pkt=160.25),
        ("cx5-mpwqe", 32): dict(driver_insn_pkt=281.0, pcie_in_pkt=76.375),
        ("cx5-mpwqe-inline", 32): dict(driver_insn_pkt=231.0,
                                       queue_stopped=1, residual_insn_pkt=
                                       (1 / 32 + 1 / N + 2 / 32) * 70),
        ("dummy-q35", 32): dict(path_insn_pkt=70.0, driver_insn_pkt=0.0),
        ("mlx4_en-norx", 32): dict(floor_insn_pkt=70.0, driver_insn_pkt=450.0,
                                   doorbells_pkt=0.0, dbbf_pkt=1 / 32,
                                   sq_db_source="sq_doorbells",
                                   pcie_in_pkt=134.0, rx_dropped_pkt=1.0),
        # whole path - engine - dma - 3/64 sections x 70, less the same of
        # cx3-db (950 - 520 - 100 - (2 + 2/64) x 70) or of xdp-drop-f
        ("xdp-drop", 64): dict(engine_insn_pkt=800.0, xdp_cost_pkt=110.0,
                               xdp_db_pkt=0.0),
        ("xdp-drop-f", 64): dict(xdp_cost_pkt=310.0),
        ("xdp-tx", 64): dict(xdp_cost_pkt=300.0, xdp_db_pkt=1 / 64,
                             xdp_polls_pkt=1 / 64),
        ("xdp-tx-pp", 64): dict(xdp_cost_pkt=400.0, xdp_db_pkt=1.0),
    }
    for (row, b), cols in want.items():
        c = record(res, row, b)
        for k, v in cols.items():
            got = c.get(k)
            if isinstance(v, float) and isinstance(got, float):
                got = round(got, 9)
                v = round(v, 9)
            t.eq(f"{row}@{b} {k}", got, v)
    t.eq("rows, bursts", analyze.present(res),
         (["dummy", "e1000e", "cx3-db", "cx3-bf", "cx3-db-opt1", "cx5",
           "cx5-mpwqe", "cx5-mpwqe-inline", "xdp-drop", "xdp-drop-f",
           "xdp-tx", "xdp-tx-pp", "dummy-q35", "mlx4_en-norx"], [1, 32, 64]))


def t_real(t):
    """A real run's lines: parsed as printed, derived as its bench.csv."""
    runs = analyze.parse(os.path.join(DATA, "real", "icount.log"))
    t.eq("records", [(r["row"], r["burst"], r["pkts"], r["elapsed_ns"])
                     for r in runs],
         [("dummy", 32, 100000, 6726000), ("cx3-db", 32, 100000, 168997000),
          ("cx5-mpwqe", 32, 100000, 95263000)])
    r = runs[1]
    for k, v in (("ring", 1024), ("queues", 1), ("e.tx_doorbells", 3125),
                 ("e.tx_xmit_more", 96875), ("e.napi_polls", 2091),
                 ("s.doorbells", 3125), ("s.engine_ns", 123851620),
                 ("s.cqes_written", 3125)):
        t.eq(f"cx3-db@32 {k}", r.get(k), v)
    t.eq("cx5-mpwqe@32 e.tx_mpwqe_blks", runs[2].get("e.tx_mpwqe_blks"), 6250)
    res = analyze.derive(runs, [])
    cols = ("path_insn_pkt", "engine_insn_pkt", "dma_insn_pkt",
            "floor_insn_pkt", "driver_insn_pkt", "dbbf_pkt", "pcie_in_pkt",
            "napi_pkt")
    csv = {  # bench.csv of 20261206-112117, those columns
        "dummy": ("67.260", "0.000", "0.000", "67.260", "0.000", "", "", ""),
        "cx3-db": ("1689.970", "1238.516", "0.000", "67.260", "384.194",
                   "0.031", "126.292", "0.021"),
        "cx5-mpwqe": ("952.630", "552.060", "0.000", "67.260", "333.310",
                      "0.031", "78.627", "0.016"),
    }
    for row, want in csv.items():
        c = record(res, row, 32)
        got = tuple("" if c.get(k) is None else analyze.fmt(c[k], 3)
                    for k in cols)
        t.eq(f"{row}@32 {', '.join(cols)}", got, want)


def run_targets(outdir):
    res = analyze.load(outdir)[3]
    rows, bursts = analyze.present(res)
    return analyze.targets(analyze.Run(res, rows, bursts, outdir))


def t_target(want):
    def case(t):
        got = [g for g in run_targets(DATA) if g[0] == want[0]]
        t.eq(want[0], got, [want])
    return case


def t_targets_all(t):
    """Exactly these targets, in this order (none added or lost)."""
    t.eq("targets", run_targets(DATA), TARGETS)


def t_table(t):
    """analyze DIR twice in sibling directories: table.md's Targets table
    is the verdicts, the second run finds the first identical, and each
    table.md names its commit (b's recorded, a's not when it ran). A
    third directory of another commit is compared with neither."""
    tmp = tempfile.mkdtemp(prefix="cxbell-analyze-")
    commit = "2b35f84 README: a subject\nuncommitted changes\n"
    try:
        for d in ("a", "b"):
            shutil.copytree(DATA, os.path.join(tmp, d))
            # b as bench/run records its commit; a as a run before that,
            # of the same commit (recorded after its analysis)
            if d == "b":
                with open(os.path.join(tmp, d, "commit"), "w") as f:
                    f.write(commit)
            out = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(io.StringIO()):
                t.eq(f"analyze {d}", analyze.analyze(os.path.join(tmp, d)), 0)
            if d == "a":
                with open(os.path.join(tmp, d, "commit"), "w") as f:
                    f.write(commit)
        text = open(os.path.join(tmp, "b", "table.md")).read()
        t.eq("printed", out.getvalue(), text + "\n")
        t.eq("b's commit", text.splitlines()[0],
             'Measured on commit `2b35f84` ("README: a subject") with '
             'uncommitted changes.')
        t.eq("a's commit",
             open(os.path.join(tmp, "a", "table.md")).readline().rstrip(),
             "Measured on commit unknown (the run predates bench/run "
             "recording it).")
        sec = text.split("\n### Targets\n\n", 1)[-1].split("\n\n", 1)[0]
        want = ["| target | result | figure |", "|---|---|---|"]
        # the second directory's: the previous one's before the repeats
        for _, name, ok, fig in TARGETS[:-1] + [PREVIOUS, TARGETS[-1]]:
            want.append(f"| {name} | {'met' if ok else 'MISSED'} | {fig} |")
        t.eq("Targets table", sec.splitlines(), want)
        t.eq("failed.txt", open(os.path.join(tmp, "b", "failed.txt")).read(),
             "cx3-hw-norx port 2 not up under cxbell_mlx4\n")
        # c, of another commit: no previous directory to compare with
        shutil.copytree(DATA, os.path.join(tmp, "c"))
        with open(os.path.join(tmp, "c", "commit"), "w") as f:
            f.write("0123abc another\n")
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            t.eq("analyze c", analyze.analyze(os.path.join(tmp, "c")), 0)
        text = open(os.path.join(tmp, "c", "table.md")).read()
        sec = text.split("\n### Targets\n\n", 1)[-1].split("\n\n", 1)[0]
        t.eq("c's Targets table", sec.splitlines(),
             [w for w in want if PREVIOUS[1] not in w])
    finally:
        shutil.rmtree(tmp)


def main():
    cases = [("bench_analyze_parse", t_parse),
             ("bench_analyze_derive", t_derive),
             ("bench_analyze_real_run", t_real),
             ("bench_analyze_targets", t_targets_all)]
    cases += [(f"bench_analyze_target_{w[0]}", t_target(w)) for w in TARGETS]
    cases.append(("bench_analyze_table", t_table))
    print(f"KTAP version 1\n# bench/analyze.py\n1..{len(cases)}")
    failed = 0
    for i, (name, fn) in enumerate(cases, 1):
        t = Case()
        try:
            fn(t)
        except Exception as e:  # a crash is a failure of that case
            t.diag.append(f"{type(e).__name__}: {e}")
        for d in t.diag:
            print(f"# {name}: {d}")
        print(f"{'not ' if t.diag else ''}ok {i} {name}")
        failed += bool(t.diag)
    print(f"# {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
