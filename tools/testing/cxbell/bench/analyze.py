#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the console logs of tools/testing/cxbell/bench/run into results.

  analyze.py DIR                      bench.csv, table.md, bench.png in DIR
  analyze.py --publish DOC.md DIR     refresh Documentation/benchmarks.md
                                      (the method from METHOD.md beside
                                      this file, then DIR's tables)

DIR holds icount.log (the @@bench lines of the -icount boot), cx3.log
(the same from the second icount boot, vm-run --cx3: the ConnectX-3
model's rows and their own dummy floor, shown as dummy-q35), and if
present wall.log (the same from a boot without -icount), perf.log (@@prof
lines), timings and commit (the commit measured, named above the tables).
See run and guest-bench.sh for what the lines mean.
"""
import collections
import csv
import glob
import operator
import os
import shutil
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree (model.py)
try:
    import model  # the cost model of the reference host, beside this file
except ImportError as e:  # (a copy of analyze.py alone)
    model = None
    MODEL_ERROR = e

# Reference figures for the peers under pktgen (whole path, guest
# insn/pkt), measured when the benchmark was first built.
REFERENCE = {
    "dummy": {1: 231, 8: 85, 32: 69, 64: 67},
    "e1000e": {1: 751, 8: 686, 32: 686, 64: 686},
    "virtio": {1: 3623, 8: 2919, 32: 2789, 64: 2684},
}
PEERS = ("dummy", "e1000e", "virtio")
# rows whose every doorbell is one per burst (no avoidance)
PLAIN = ("cx3-db", "cx3-bf", "cx3-db-inline", "cx3-bf-inline", "cx5", "cx5-mpwqe",
         "cx5-mpwqe-inline", "cx5-bf", "cx4")
CXGEN = ("cx3", "cx4", "cx5")  # row name prefixes of cxbell sim rows
# rows on the QEMU ConnectX-3 model (bench/run's --cx3 boot): counts from
# the model's counters page (m.*), nothing subtracted but dummy-q35
MODEL_ROWS = ("mlx4_en", "cx3-hw", "mlx4_en-norx", "cx3-hw-norx")
FLOOR_Q35 = "dummy-q35"  # the --cx3 boot's dummy row
PLAIN_MODEL = MODEL_ROWS  # one ring per burst too (mlx4_en en_tx.c)
TARGET_DRIVER = 120

CSV_COLS = [
    "row", "burst", "size", "ring", "queues", "sweep", "rep", "pkts",
    "elapsed_ns", "path_insn_pkt", "engine_insn_pkt", "dma_insn_pkt",
    "floor_insn_pkt", "driver_insn_pkt", "residual_insn_pkt",
    "doorbells_pkt", "bf_pkt", "dbbf_pkt", "kicks_pkt", "mmio_bytes_pkt",
    "pcie_desc_pkt", "pcie_data_pkt", "pcie_cqe_pkt", "pcie_dbrec_pkt",
    "pcie_mmio_pkt", "pcie_tlp_pkt", "pcie_total_pkt", "pcie_in_pkt", "cqes_pkt",
    "irqs_pkt", "napi_pkt", "xmit_more_pkt", "deferred_pkt",
    "by_completion_pkt", "forced_pkt", "on_stop", "queue_stopped",
    "violations", "wall_mpps",
    "xdp_db_pkt", "xdp_polls_pkt", "xdp_cost_pkt",
    "pcie_out_pkt", "wqes_pkt", "eqes_pkt", "cq_arms_pkt", "rx_frames_pkt",
    "rx_dropped_pkt", "tx_paused", "pause", "sq_db_source",
]
XDP_ROWS = ("xdp-drop", "xdp-drop-f", "xdp-tx", "xdp-tx-pp")


def parse(path, boot="main"):
    runs = []
    if not os.path.exists(path):
        return runs
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith("@@bench "):
                continue
            d = {}
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                d[k] = v
            for k in list(d):
                if k not in ("row", "sweep"):
                    try:
                        d[k] = int(d[k])
                    except ValueError:
                        pass
            d.setdefault("sweep", "burst")
            d.setdefault("rep", 1)
            d["boot"] = boot
            if boot == "cx3" and d["row"] == "dummy":
                d["row"] = FLOOR_Q35
            runs.append(d)
    return runs


def parse_failed(path):
    """@@bench-failed lines: [(row, why)]"""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"@@bench-failed row=(\S+) why=(.*)", line.rstrip())
            if m:
                out.append((m.group(1), m.group(2)))
    return out


def is_sim(row):
    return row.startswith(CXGEN) and row not in MODEL_ROWS


def model_sq_doorbells(r):
    """Send doorbell writes (UAR + 0x14) of a model row, and the source:
    the model's sq_doorbells, else its doorbells less the CQ arms and the
    EQ doorbells (eq_doorbells, else one per interrupt: mlx4_eq_int()
    re-arms its EQ once per interrupt), as cx3-stock.sh's pktgen_burst."""
    if "m.sq_doorbells" in r:
        return r["m.sq_doorbells"], "sq_doorbells"
    eq = r.get("m.eq_doorbells", r.get("m.interrupts", 0))
    return (r.get("m.doorbells", 0) - r.get("m.cq_arms", 0) - eq,
            "derived" + ("" if "m.eq_doorbells" in r else "-irq"))


def key(r):
    return (r["row"], r["burst"], r["size"], r.get("ring", 0), r["sweep"], r["rep"])


def derive(runs, wall):
    wall_by = {(w["row"], w["burst"], w["size"], w["sweep"]): w for w in wall}
    floor = {}
    for r in runs:
        if r["row"] == "dummy" and r["rep"] == 1 and r["sweep"] in ("burst", "size"):
            floor[(r["burst"], r["size"])] = r["elapsed_ns"] / r["pkts"]
        if r["row"] == FLOOR_Q35 and r["rep"] == 1:
            floor[("q35", r["burst"], r["size"])] = r["elapsed_ns"] / r["pkts"]
        if r["row"] == "dummy-mq" and r["sweep"] == "queues":
            floor[("queues", r.get("queues", 1))] = r["elapsed_ns"] / r["pkts"]
    out = []
    for r in runs:
        p = r["pkts"]
        g = lambda k: r.get(k, 0) / p
        c = dict(row=r["row"], burst=r["burst"], size=r["size"],
                 ring=r.get("ring", 0), queues=r.get("queues", 1),
                 sweep=r["sweep"], rep=r["rep"], pkts=p,
                 elapsed_ns=r["elapsed_ns"])
        c["path_insn_pkt"] = r["elapsed_ns"] / p
        c["engine_insn_pkt"] = g("s.engine_ns")
        c["dma_insn_pkt"] = g("a.dma_ns")
        fl = floor.get((r["burst"], r["size"]))
        if r.get("boot") == "cx3":
            fl = floor.get(("q35", r["burst"], r["size"]))
        if r["sweep"] == "queues":
            fl = floor.get(("queues", r.get("queues", 1)))
        c["floor_insn_pkt"] = fl
        if r["row"].startswith("dummy"):
            c["driver_insn_pkt"] = 0.0
        elif fl is not None and r["row"] in MODEL_ROWS:
            c["driver_insn_pkt"] = c["path_insn_pkt"] - fl
        elif fl is not None:
            c["driver_insn_pkt"] = (c["path_insn_pkt"] - c["engine_insn_pkt"]
                                    - c["dma_insn_pkt"] - fl)
        else:
            c["driver_insn_pkt"] = None
        cx = is_sim(r["row"])
        # timed sections of the sim per packet (each leaves about one
        # ktime_get_ns() and its accounting outside, in "driver")
        c["residual_insn_pkt"] = None
        if cx:
            c["timed_sections_pkt"] = (g("a.dma_calls") + g("s.doorbells")
                                       + g("s.bf_writes") + 2 * g("e.napi_polls"))
        c["doorbells_pkt"] = g("s.doorbells") if cx else None
        c["bf_pkt"] = g("s.bf_writes") if cx else None
        c["dbbf_pkt"] = (c["doorbells_pkt"] + c["bf_pkt"]) if cx else None
        c["kicks_pkt"] = g("e.tx_queue_0_kicks") if r["row"] == "virtio" else None
        if cx:
            c["mmio_bytes_pkt"] = g("s.pcie_mmio_bytes")
            c["pcie_desc_pkt"] = g("s.pcie_desc_read_bytes")
            c["pcie_data_pkt"] = g("s.pcie_data_read_bytes")
            c["pcie_cqe_pkt"] = g("s.pcie_cqe_write_bytes")
            c["pcie_dbrec_pkt"] = g("s.pcie_db_read_bytes")
            c["pcie_mmio_pkt"] = g("s.pcie_mmio_bytes")
            c["pcie_tlp_pkt"] = g("s.pcie_tlp_overhead_bytes")
            c["pcie_total_pkt"] = sum(c[k] for k in (
                "pcie_desc_pkt", "pcie_data_pkt", "pcie_cqe_pkt",
                "pcie_dbrec_pkt", "pcie_mmio_pkt", "pcie_tlp_pkt"))
            # into the device: MMIO writes and read completions (payload)
            c["pcie_in_pkt"] = sum(c[k] for k in (
                "pcie_desc_pkt", "pcie_data_pkt", "pcie_dbrec_pkt",
                "pcie_mmio_pkt"))
            c["cqes_pkt"] = g("s.cqes_written")
            c["irqs_pkt"] = g("s.irqs")
            c["napi_pkt"] = g("e.napi_polls")
            c["xmit_more_pkt"] = g("e.tx_xmit_more")
            c["deferred_pkt"] = g("e.tx_doorbell_deferred")
            c["by_completion_pkt"] = g("e.tx_doorbell_by_completion")
            c["forced_pkt"] = g("e.tx_doorbell_forced")
            c["on_stop"] = r.get("e.tx_doorbell_on_stop", 0)
            c["queue_stopped"] = r.get("e.tx_queue_stopped", 0)
            c["violations"] = r.get("s.violations", 0)
        elif r["row"] in MODEL_ROWS:
            sq, src = model_sq_doorbells(r)
            c["sq_db_source"] = src
            c["doorbells_pkt"] = sq / p
            c["bf_pkt"] = g("m.bf_writes")
            c["dbbf_pkt"] = c["doorbells_pkt"] + c["bf_pkt"]
            c["pcie_in_pkt"] = g("m.pcie_in_bytes")
            c["pcie_out_pkt"] = g("m.pcie_out_bytes")
            c["wqes_pkt"] = g("m.wqes")
            c["cqes_pkt"] = g("m.cqes")
            c["eqes_pkt"] = g("m.eqes")
            c["irqs_pkt"] = g("m.interrupts")
            c["cq_arms_pkt"] = g("m.cq_arms")
            c["rx_frames_pkt"] = g("m.rx_frames")
            c["rx_dropped_pkt"] = g("m.rx_dropped")
            c["tx_paused"] = r.get("m.tx_paused", 0)
            c["pause"] = r.get("pause")
            # mlx4_en: xmit_more, queue_stopped; cxbell: tx_*
            c["xmit_more_pkt"] = g("e.xmit_more") + g("e.tx_xmit_more")
            c["on_stop"] = r.get("e.tx_doorbell_on_stop", 0)
            c["queue_stopped"] = (r.get("e.queue_stopped", 0)
                                  + r.get("e.tx_queue_stopped", 0))
            c["violations"] = r.get("m.violations", 0)
        else:
            c["irqs_pkt"] = g("i.irqs")
        if cx:
            c["pcie_out_pkt"] = g("s.pcie_cqe_write_bytes") + g("s.pcie_data_write_bytes")
        if r["row"].startswith("xdp"):
            # both ports of the pair: the sim's time on either, and port
            # 1's (the program's) XDP send queue doorbells and NAPI polls
            c["engine_insn_pkt"] = g("s.engine_ns") + g("s1.engine_ns")
            c["xdp_db_pkt"] = g("p.tx_xdp_doorbells")
            c["xdp_polls_pkt"] = g("p.napi_polls")
            c["violations"] = r.get("s.violations", 0) + r.get("s1.violations", 0)
            # the sim's timed sections on both ports (doorbells, CQ arms:
            # two per NAPI poll, IOMMU calls), for the residual bound
            c["xdp_sections_pkt"] = (g("a.dma_calls") + g("s.doorbells")
                                     + g("s1.doorbells") + g("s.bf_writes")
                                     + g("s1.bf_writes")
                                     + 2 * (g("e.napi_polls") + g("p.napi_polls")))
        w = wall_by.get((r["row"], r["burst"], r["size"], r["sweep"]))
        c["wall_mpps"] = (w["pkts"] / (w["elapsed_ns"] / 1000.0)) if w else None
        out.append(c)
    return out


def xdp_costs(res, kbound):
    """XDP cost on port 1 per packet, from the rows' whole paths less the
    sim's time (engine_ns), the IOMMU model's (dma_ns) and the residual
    bound of its timed sections (kbound each, as for the TX rows):
      xdp-drop*: minus cx3-db (the same pktgen + cx3 TX, frames discarded)
      xdp-tx*:   minus xdp-drop-f (port 0 drops the returned frame with
                 the program port 1 drops it with in xdp-drop-f)
    """
    def net(c):
        sec = c.get("xdp_sections_pkt", c.get("timed_sections_pkt")) or 0.0
        return (c["path_insn_pkt"] - c["engine_insn_pkt"] - c["dma_insn_pkt"]
                - sec * kbound)
    by = {(c["row"], c["burst"]): c for c in res
          if c["sweep"] == "burst" and c["rep"] == 1 and c["size"] == 60}
    for c in res:
        if c["row"] not in XDP_ROWS or c["sweep"] != "burst":
            continue
        base = by.get(("cx3-db" if c["row"].startswith("xdp-drop")
                       else "xdp-drop-f", c["burst"]))
        c["xdp_cost_pkt"] = net(c) - net(base) if base else None


def fmt(v, nd=0):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def matrix(res, rows, bursts, col, nd=0, title=""):
    lines = [f"| {title} | " + " | ".join(str(b) for b in bursts) + " |",
             "|---|" + "---:|" * len(bursts)]
    for row in rows:
        cells = []
        for b in bursts:
            m = [c for c in res if c["row"] == row and c["burst"] == b
                 and c["sweep"] == "burst" and c["rep"] == 1 and c["size"] == 60]
            cells.append(fmt(m[0].get(col), nd) if m else "")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def prof_parse(path, res):
    """@@prof lines -> {(row, burst): {"period", "cats", "owners"}}"""
    prof = {}
    if not os.path.exists(path):
        return prof
    pkts = None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"Result: OK: \d+\(c\d+\+d\d+\) usec, (\d+) ", line)
            if line.startswith("@@perf-result") and m:
                pkts = int(m.group(1))
            if not line.startswith("@@prof "):
                continue
            d = dict(kv.split("=", 1) for kv in line.split()[1:])
            k = (d["row"], int(d["burst"]))
            p = prof.setdefault(k, {"period": int(d["period"]), "cats": {},
                                    "owners": {}, "pkts": pkts})
            n = int(d["n"])
            p["cats"][d["cat"]] = p["cats"].get(d["cat"], 0) + n
            ok = (d["cat"], d["owner"])
            p["owners"][ok] = p["owners"].get(ok, 0) + n
    return prof


def prof_text(prof, res):
    out = []
    names = {"driver": "the row's driver", "engine": "sim engine (engine_ns)",
             "simdma": "sim IOMMU model (dma_ns)", "stack": "pktgen + stack + rest"}
    for (row, b), p in sorted(prof.items()):
        tot = sum(p["cats"].values())
        m = [c for c in res if c["row"] == row and c["burst"] == b
             and c["sweep"] == "burst" and c["rep"] == 1 and c["size"] == 60]
        path = m[0]["path_insn_pkt"] if m else None
        out.append(f"Profile of {row} at burst {b} (perf record -e cpu-clock "
                   f"-c {p['period']} -a -g; {tot} samples of kpktgend_0 and "
                   f"ksoftirqd/0; insn/pkt = share x the measured whole path "
                   f"{fmt(path)} insn/pkt of the unprofiled run):\n")
        out.append("| category | share | ≈ insn/pkt |\n|---|---:|---:|")
        for cat in ("driver", "engine", "simdma", "stack"):
            n = p["cats"].get(cat, 0)
            sh = n / tot if tot else 0
            out.append(f"| {names[cat]} | {sh * 100:.1f}% | "
                       f"{fmt(sh * path if path else None)} |")
        out.append("")
        out.append("Top owners (function holding the CPU or the irqs-off "
                   "section; see the method):\n")
        out.append("| category | function | share | ≈ insn/pkt |\n|---|---|---:|---:|")
        for (cat, own), n in sorted(p["owners"].items(), key=lambda x: -x[1])[:15]:
            sh = n / tot
            out.append(f"| {cat} | {own} | {sh * 100:.1f}% | "
                       f"{fmt(sh * path if path else None)} |")
        drv = sorted(((own, n) for (cat, own), n in p["owners"].items()
                      if cat == "driver"), key=lambda x: -x[1])[:10]
        if drv:
            out.append("")
            out.append("Driver category, top functions:\n")
            out.append("| function | share | ≈ insn/pkt |\n|---|---:|---:|")
            for own, n in drv:
                sh = n / tot
                out.append(f"| {own} | {sh * 100:.1f}% | "
                           f"{fmt(sh * path if path else None)} |")
        out.append("")
    return "\n".join(out)


def ktime_cost(prof):
    """insn per ktime_get_ns() call, from the profile of cx3-db (samples in
    ktime_get/read_tsc under the IOMMU model's map/unmap, 2 calls each)."""
    p = prof.get(("cx3-db", 32))
    if not p or not p.get("pkts"):
        return None
    n = sum(v for (cat, own), v in p["owners"].items()
            if cat == "simdma" and own in ("ktime_get", "read_tsc"))
    calls = 2 * 2 * p["pkts"]  # map + unmap per packet, 2 reads each
    return n * p["period"] / calls if n else None


# The plot's panels: (title, rows) of the instruction panels, each row
# with the same colour and point type in every panel.
PLOT_PANELS = (
    ("cx3 policies vs peers", ("e1000e", "virtio", "cx3-db", "cx3-bf",
                               "cx3-db-opt1", "cx3-db-opt3", "cx3-db-inline",
                               "cx3-bf-inline")),
    ("cx5: SEND, MPWQE, BlueFlame; cx4: SEND, L2 inline (cx3-db for reference)",
     ("cx3-db", "cx5", "cx5-mpwqe", "cx5-mpwqe-inline", "cx5-bf", "cx4")),
    ("QEMU ConnectX-3 model (own boot; all but -norx include port 2's receive)",
     MODEL_ROWS),
)
PLOT_STYLE = {  # row: (colour, point type)
    "e1000e": ("#000000", 1), "virtio": ("#999999", 2),
    "cx3-db": ("#e41a1c", 7), "cx3-bf": ("#377eb8", 5),
    "cx3-db-opt1": ("#4daf4a", 9), "cx3-db-opt3": ("#984ea3", 11),
    "cx3-db-inline": ("#ff7f00", 13), "cx3-bf-inline": ("#a65628", 3),
    "cx5": ("#f781bf", 5), "cx5-mpwqe": ("#1b9e77", 7),
    "cx5-mpwqe-inline": ("#d95f02", 9), "cx4": ("#66a61e", 11),
    "cx5-bf": ("#7570b3", 13),
    "mlx4_en": ("#377eb8", 7), "cx3-hw": ("#e41a1c", 5),
    "mlx4_en-norx": ("#377eb8", 6), "cx3-hw-norx": ("#e41a1c", 4),
}


def plot(res, rows, bursts, outdir):
    """bench.png: instructions per packet by row family, doorbells and
    PCIe bytes per packet, and the XDP rows at their one burst."""
    dat = os.path.join(outdir, "plot.dat")
    present_rows = []
    with open(dat, "w") as f:
        for row in rows:
            pts = []
            for b in bursts:
                m = [c for c in res if c["row"] == row and c["burst"] == b
                     and c["sweep"] == "burst" and c["rep"] == 1 and c["size"] == 60]
                if not m:
                    continue
                c = m[0]
                db = c["dbbf_pkt"] if c["dbbf_pkt"] is not None else c["kicks_pkt"]
                if row in MODEL_ROWS:
                    db = c.get("doorbells_pkt", 0) or 0
                    db = db + (c.get("bf_pkt") or 0)
                pts.append(f"{b} " + " ".join(
                    fmt(v, 6) if v is not None else "NaN"
                    for v in (c["driver_insn_pkt"], db, c.get("pcie_in_pkt"))))
            if pts:
                present_rows.append(row)
                f.write(f'"{row}"\n' + "\n".join(pts) + "\n\n\n")
    idx = {r: i for i, r in enumerate(present_rows)}
    xdat = os.path.join(outdir, "plot-xdp.dat")
    xrows = []
    with open(xdat, "w") as f:
        for row in XDP_ROWS:
            m = [c for c in res if c["row"] == row and c.get("xdp_cost_pkt") is not None]
            if m:
                xrows.append(row)
                f.write(f'"{row}" {fmt(m[0]["xdp_cost_pkt"], 2)} '
                        f'{fmt(m[0]["xdp_db_pkt"], 6)} {m[0]["burst"]}\n')

    def style(row):
        col, pt = PLOT_STYLE.get(row, ("#666666", 1))
        return f'lc rgb "{col}" pt {pt} ps 1.1 lw 1.6'

    def lines(rs, col):
        return ", ".join(f"'{dat}' index {idx[r]} using 1:{col} with linespoints "
                         f"{style(r)} title '{r}'" for r in rs if r in idx)

    png = os.path.join(outdir, "bench.png")
    gp = [f"""set terminal pngcairo size 1800,1050 font ",10" noenhanced
set output '{png}'
set multiplot layout 2,3 title "cxbell pktgen benchmark (QEMU TCG -icount: 1 insn = 1 ns; 60 B, clone_skb 1000000, 1 queue)"
set logscale x 2
set xrange [0.8:{max(bursts) * 1.25}]
set grid
set key top right font ",9" samplen 2
set xlabel "pktgen burst"
set ylabel "driver instructions / packet"
"""]
    for i, (title, rs) in enumerate(PLOT_PANELS):
        if not any(r in idx for r in rs):
            gp.append("set multiplot next\n")
            continue
        # log axes where the range needs one: virtio at burst 1 against
        # the cx3 rows; the model rows with a receiver against -norx
        gp.append("unset logscale y\n" if i == 1 else "set logscale y 2\n")
        gp.append(f'set title "{title}"\nplot {lines(rs, 2)}\n')
    sim = [r for r in present_rows if is_sim(r) or r in MODEL_ROWS]
    # (the model rows with a receiver add port 2's receive DMA)
    tx_only = [r for r in sim if is_sim(r) or r.endswith("-norx")]
    gp.append(f"""set logscale y 2
set ylabel "doorbells + BlueFlame posts / packet"
set title "doorbells + BF per packet (1/burst dashed)"
plot {lines(sim, 3)}, 1/x with lines dt 2 lc rgb "black" title "1/burst"
unset logscale y
set ylabel "PCIe bytes host -> device / packet"
set title "PCIe inbound bytes per packet, send side only (MMIO + DMA reads, TLP overheads)"
plot {lines(tx_only, 4)}
""")
    if xrows:
        gp.append(f"""unset logscale x
unset logscale y
set xrange [*:*]
set style fill solid 0.5
set boxwidth 0.6
set xtics rotate by 0
set yrange [0:*]
set xlabel "XDP row (2-port cx3 sim adapter, burst {xrows and [c['burst'] for c in res if c['row'] == xrows[0]][0]})"
set ylabel "XDP cost insn / packet (port 1)"
set y2label "XDP doorbells / packet"
set y2tics
set y2range [0:1.1]
set key top left
set title "XDP on port 1 (XDP_TX: one doorbell per NAPI poll vs per frame)"
plot '{xdat}' using 0:2:xtic(1) with boxes lc rgb "#377eb8" title "XDP cost", \\
     '' using 0:3 axes x1y2 with points pt 7 ps 1.6 lc rgb "#e41a1c" title "doorbells/pkt"
""")
    gp.append("unset multiplot\n")
    gpf = os.path.join(outdir, "plot.gp")
    with open(gpf, "w") as f:
        f.write("".join(gp))
    try:
        subprocess.run(["gnuplot", gpf], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench: gnuplot failed: {e}", file=sys.stderr)
        return None
    return png


def commit_lines(outdir):
    """The lines of the file commit bench/run writes in outdir ("HASH
    SUBJECT", then "uncommitted changes" if the tree had some); [] if the
    run predates it."""
    path = os.path.join(outdir, "commit")
    return open(path).read().splitlines() if os.path.exists(path) else []


def commit_hash(outdir):
    """The commit hash bench/run recorded in outdir, or None."""
    lines = commit_lines(outdir)
    if not lines:
        return None
    return lines[0].strip().partition(" ")[0] or None


def prev_run(outdir, res):
    """The newest other results dir with bench.csv of the same build (the
    same recorded commit, or neither recorded one); compare elapsed_ns."""
    outdir = os.path.realpath(outdir)
    base = os.path.dirname(outdir)
    build = commit_hash(outdir)
    cands = sorted(d for d in glob.glob(os.path.join(base, "*"))
                   if os.path.isdir(d) and not os.path.islink(d)
                   and os.path.realpath(d) != outdir
                   and os.path.exists(os.path.join(d, "bench.csv"))
                   and commit_hash(d) == build)
    mine = {key_csv(c): c["elapsed_ns"] for c in res}
    for d in reversed(cands):
        with open(os.path.join(d, "bench.csv")) as f:
            other = {key_csv(r): int(r["elapsed_ns"]) for r in csv.DictReader(f)}
        common = set(mine) & set(other)
        if common:
            diff = sorted(k for k in common if mine[k] != other[k])
            return d, len(common), diff, mine, other
    return None


def key_csv(c):
    # Only like-for-like points compare: same row, burst, size, ring,
    # queues, sweep and repeat, and the same packet count (pktgen may
    # overshoot it by less than a burst, hence the thousands).
    return (c["row"], int(c["burst"]), int(c["size"]), int(c["ring"]),
            int(c["queues"]), c["sweep"], int(c["rep"]),
            int(c["pkts"]) // 1000)


def lookup(res, row, b, col, sweep="burst", size=60):
    """Column col of the first repeat of row at burst b (None if absent)."""
    m = [c for c in res if c["row"] == row and c["burst"] == b and
         c["sweep"] == sweep and c["rep"] == 1 and c["size"] == size]
    return m[0].get(col) if m else None


class Run:
    """What a target's measure looks at: derive()'s records, the rows and
    bursts present and the results directory (test.ktap, earlier runs)."""

    def __init__(self, res, rows, bursts, outdir):
        self.res, self.rows, self.bursts, self.outdir = res, rows, bursts, outdir

    def get(self, row, b, col):
        return lookup(self.res, row, b, col)


# Measures: run -> None when the run lacks what the target needs (it is
# then not shown), else (value, figure text[, fields for the name]). The
# value is compared with the target's threshold; the figure is what the
# Targets table prints.

def m_one_ring_per_burst(run):
    bad, stopped = [], []
    for row in PLAIN + PLAIN_MODEL:
        for b in run.bursts:
            m = [c for c in run.res if c["row"] == row and c["burst"] == b
                 and c["sweep"] == "burst" and c["size"] == 60]
            for c in m:
                dbbf = round(c["dbbf_pkt"] * c["pkts"])
                if c["on_stop"] or c["queue_stopped"]:
                    stopped.append(f"{row}@{b} ({c['queue_stopped']} stop, "
                                   f"{dbbf} rings for {c['pkts']} pkts)")
                elif dbbf * b != c["pkts"]:
                    bad.append(f"{row}@{b}: {dbbf}x{b} vs {c['pkts']} pkts")
    checked = [r for r in PLAIN + PLAIN_MODEL if r in run.rows]
    if not checked:
        return None
    fig = ("exact: (doorbells + BF) x burst == packets" if not bad
           else "; ".join(bad[:6]))
    if stopped:
        fig += "; excluded (queue stopped): " + ", ".join(stopped)
    return len(bad), fig, {"rows": ", ".join(checked)}


def m_cx3_db_driver(run):
    d32 = run.get("cx3-db", 32, "driver_insn_pkt")
    if d32 is None:
        return None
    r32 = run.get("cx3-db", 32, "residual_insn_pkt") or 0
    return d32, (f"{d32:.0f} insn/pkt (lower bound after the timing "
                 f"residual: {d32 - r32:.0f})")


def m_below_e1000e(run):
    if run.get("cx3-db", 32, "driver_insn_pkt") is None or "e1000e" not in run.rows:
        return None
    worse = []
    for b in run.bursts:
        dc = run.get("cx3-db", b, "driver_insn_pkt")
        de = run.get("e1000e", b, "driver_insn_pkt")
        if dc is not None and de is not None and dc >= de:
            worse.append(f"{b}: {dc:.0f} vs {de:.0f}")
    return len(worse), ("every burst below" if not worse else
                        "not below at burst " + ", ".join(worse))


def m_driver_at_32(row):
    def measure(run):
        d = run.get(row, 32, "driver_insn_pkt")
        fl = run.get("dummy", 32, "path_insn_pkt")
        if d is None:
            return None
        return d, f"{d:.0f} insn/pkt" + (
            f", whole path {d + fl:.0f} (floor {fl:.0f})" if fl is not None else "")
    return measure


def m_burst1_below_e1000e(run):
    d1 = run.get("cx3-db", 1, "driver_insn_pkt")
    e1 = run.get("e1000e", 1, "driver_insn_pkt")
    if d1 is None or e1 is None:
        return None
    return d1 - e1, f"{d1:.0f} vs {e1:.0f} insn/pkt"


def m_opt1_burst1(run):
    o1 = run.get("cx3-db-opt1", 1, "driver_insn_pkt")
    o32 = run.get("cx3-db-opt1", 32, "driver_insn_pkt")
    if o1 is None or o32 is None:
        return None
    return abs(o1 - o32) / o32, (f"burst 1: {o1:.0f}, burst 32: {o32:.0f} insn/pkt "
                                 f"({(o1 - o32) / o32 * 100:+.0f}%)")


def m_two_boots(run):
    """bench/test (test.ktap): the short sweep in two -icount boots, same
    build; value: the share of its points identical in both."""
    tk = os.path.join(run.outdir, "test.ktap")
    if not os.path.exists(tk):
        return None
    lines = open(tk).read().splitlines()
    same = [l for l in lines if l.startswith("ok ") and "_identical_in_two_runs" in l]
    diff = [l for l in lines if l.startswith("not ok ") and "_identical_in_two_runs" in l]
    ins = [l[2:] for l in lines if l.startswith("# ") and "guest insn/pkt in both runs" in l]
    n = len(same) + len(diff)
    return (len(same) / n if n else 0.0,
            f"{len(same)}/{n} points identical"
            + (": " + "; ".join(ins) if ins and not diff else "")
            + ("; differ: " + "; ".join(d.split(" ", 3)[3] for d in diff)
               if diff else ""))


def m_mpwqe_pcie_in(run):
    m0, m1 = run.get("cx5", 32, "pcie_in_pkt"), run.get("cx5-mpwqe", 32, "pcie_in_pkt")
    if not m0 or m1 is None:
        return None
    return (m0 - m1) / m0, (f"{m0:.1f} -> {m1:.1f} B/pkt ({(m1 - m0) / m0 * 100:+.0f}%; "
                            "MMIO + descriptor, data and doorbell record reads)")


def m_mpwqe_driver(run):
    m0 = run.get("cx5", 32, "driver_insn_pkt")
    m1 = run.get("cx5-mpwqe", 32, "driver_insn_pkt")
    if not m0 or m1 is None:
        return None
    return (m0 - m1) / m0, (f"{m0:.0f} -> {m1:.0f} insn/pkt "
                            f"({(m1 - m0) / m0 * 100:+.0f}%)")


def m_xdp_tx_doorbells(run):
    x0, x1 = run.get("xdp-tx-pp", 64, "xdp_db_pkt"), run.get("xdp-tx", 64, "xdp_db_pkt")
    if not x0 or not x1:
        return None
    return x0 / x1, f"{x0:.4f} -> {x1:.4f} doorbells/pkt ({x0 / x1:.0f}x)"


# mlx5 "RX refactoring and XDP support", RFC 11/11: XDP_TX Mpps with a
# doorbell per packet and with one per NAPI poll
XDP_TX_MPPS = (4.90, 7.50)


def m_xdp_tx_gain(run):
    if not run.get("xdp-tx-pp", 64, "xdp_db_pkt") or not run.get("xdp-tx", 64, "xdp_db_pkt"):
        return None
    if model is None:
        raise MODEL_ERROR
    xp = model.xdp_pair(run.res, 64)
    if not xp:
        return None
    g, pub = xp[1] / xp[0], XDP_TX_MPPS[1] / XDP_TX_MPPS[0]
    return abs(g / pub - 1), (f"x{g:.2f} ({xp[0]:.2f} -> {xp[1]:.2f} Mpps on the "
                              f"reference host; {(g / pub - 1) * 100:+.0f}% vs the "
                              "published gain)")


def m_previous_dir(run):
    pr = prev_run(run.outdir, run.res)
    if not pr:
        return None
    d, n, diff, mine, other = pr
    ex = "; ".join(f"{k[0]}@{k[1]}: {mine[k]} vs {other[k]}" for k in diff[:4])
    return len(diff), (f"{n - len(diff)}/{n} points identical to "
                       f"{os.path.basename(d)}" + (f"; differ: {ex}" if diff else ""))


def m_repeats(run):
    reps = {}
    for c in run.res:
        reps.setdefault(key(c)[:5], []).append(c["elapsed_ns"])
    multi = {k: v for k, v in reps.items() if len(v) > 1}
    if not multi:
        return None
    same = [k for k, v in multi.items() if len(set(v)) == 1]
    return len(multi) - len(same), f"{len(same)}/{len(multi)} points"


# The targets of the benchmark, in the order of the Targets table. A
# target is met iff its measure's value OP threshold. name is formatted
# with threshold= and the measure's fields; source says where the figure
# it is held against comes from (MODEL.md has the threads).
Target = collections.namedtuple("Target", "key name measure op threshold source")
OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge}
TARGETS = (
    Target("one_ring_per_burst",
           "doorbells + BF posts per packet == 1/burst (queue never stops; "
           "rows {rows}, every burst)",
           m_one_ring_per_burst, "==", 0,  # points that miss it
           "design: one doorbell or BlueFlame post when no more packets "
           "follow (README); one ring per burst too in mlx4_en (en_tx.c)"),
    Target("cx3_db_driver",
           "cxbell cx3 doorbell driver cost <= {threshold} insn/pkt at burst 32",
           m_cx3_db_driver, "<=", TARGET_DRIVER,
           "project goal, no published figure"),
    Target("cx3_db_below_e1000e",
           "cxbell cx3 doorbell driver cost below e1000e's at every burst",
           m_below_e1000e, "==", 0,  # bursts not below
           "project goal, against e1000e in the same run"),
    # mlx5e's per-packet cost for the same pktgen run (burst 32), from
    # "net/mlx5e: Enhanced TX MPWQE for SKBs": 421 insn/pkt, 329 with
    # MPWQE. The goal: the whole path (driver + this run's dummy floor)
    # 10 % below it, i.e. driver cost <= 0.9 x figure - a 67-insn floor.
    # cx5-mpwqe-inline: the same, its packets in inline segments (no DMA
    # map or unmap per packet; not the default, tx-copybreak 0).
    Target("cx3_db_vs_mlx5e",
           "cx3-db driver cost <= {threshold} insn/pkt at burst 32 "
           "(whole path about 10% below mlx5e's 421)",
           m_driver_at_32("cx3-db"), "<=", 312,
           "\"net/mlx5e: Enhanced TX MPWQE for SKBs\": 421 insn/pkt"),
    Target("cx5_mpwqe_vs_mlx5e",
           "cx5-mpwqe driver cost <= {threshold} insn/pkt at burst 32 "
           "(whole path about 10% below mlx5e's 329)",
           m_driver_at_32("cx5-mpwqe"), "<=", 232,
           "\"net/mlx5e: Enhanced TX MPWQE for SKBs\": 329 insn/pkt with MPWQE"),
    Target("cx5_mpwqe_inline_vs_mlx5e",
           "cx5-mpwqe-inline driver cost <= {threshold} insn/pkt at burst 32 "
           "(whole path about 10% below mlx5e's 329)",
           m_driver_at_32("cx5-mpwqe-inline"), "<=", 232,
           "\"net/mlx5e: Enhanced TX MPWQE for SKBs\": 329 insn/pkt with MPWQE"),
    Target("cx3_db_burst1_below_e1000e",
           "cx3-db at burst 1 (default moderation) below e1000e",
           m_burst1_below_e1000e, "<", 0,  # cx3-db - e1000e
           "project goal, against e1000e in the same run"),
    Target("opt1_burst1",
           "doorbell_opt 1 at burst 1 within {threshold:.0%} of burst 32",
           m_opt1_burst1, "<=", 0.25,  # |burst 1 - burst 32| / burst 32
           "project goal, no published figure"),
    Target("two_boots_identical",
           "two consecutive runs give identical instruction counts "
           "(bench/test: 2 boots, short sweep)",
           m_two_boots, ">=", 1.0,  # share of points identical
           "project requirement: a deterministic benchmark (bench/test)"),
    Target("mpwqe_pcie_in",
           "cx5 MPWQE: >= {threshold:.0%} fewer PCIe inbound bytes per "
           "packet at burst 32",
           m_mpwqe_pcie_in, ">=", 0.25,  # (cx5 - cx5-mpwqe) / cx5
           "project goal; \"net/mlx5e: Enhanced TX MPWQE for SKBs\" "
           "published PCIe inbound 80.3% -> 59.0% of the link (Gen2)"),
    Target("mpwqe_driver",
           "cx5 MPWQE: >= {threshold:.0%} fewer driver instructions per "
           "packet at burst 32",
           m_mpwqe_driver, ">=", 0.20,  # (cx5 - cx5-mpwqe) / cx5
           "project goal; \"net/mlx5e: Enhanced TX MPWQE for SKBs\" "
           "published 421 -> 329 insn/pkt"),
    Target("xdp_tx_doorbells",
           "XDP_TX: one doorbell per NAPI poll cuts doorbells per packet "
           ">= {threshold}x at burst 64 (NAPI budget 64)",
           m_xdp_tx_doorbells, ">=", 16,  # xdp-tx-pp / xdp-tx
           "design: mlx5 \"RX refactoring and XDP support\", RFC 11/11 (one "
           "XDP_TX doorbell per NAPI poll)"),
    Target("xdp_tx_gain",
           "XDP_TX: modelled rate gain of the batching within {threshold:.0%} "
           "of the published one (mlx5 \"RX refactoring and XDP support\", "
           "RFC 11/11: 4.90 -> 7.50 Mpps, x1.53)",
           m_xdp_tx_gain, "<=", 0.15,  # |model gain / published gain - 1|
           "mlx5 \"RX refactoring and XDP support\", RFC 11/11: "
           "4.90 -> 7.50 Mpps, x1.53"),
    Target("previous_dir",
           "identical to the previous results directory of the same "
           "commit (informational)",
           m_previous_dir, "==", 0,  # points that differ
           "informational"),
    Target("repeats",
           "repeats within one boot identical (informational)",
           m_repeats, "==", 0,  # points whose repeats differ
           "informational"),
)


def targets(run):
    """[(key, name, met, figure)] of every target the run has data for."""
    out = []
    for t in TARGETS:
        m = t.measure(run)
        if m is None:
            continue
        fields = m[2] if len(m) > 2 else {}
        out.append((t.key, t.name.format(threshold=t.threshold, **fields),
                    OPS[t.op](m[0], t.threshold), m[1]))
    return out


def load(outdir):
    """DIR's logs parsed and derived: (runs, failed, wall, res, prof, kc,
    kbound), res with the XDP costs and residual bounds filled in."""
    runs = parse(os.path.join(outdir, "icount.log"))
    runs += parse(os.path.join(outdir, "cx3.log"), "cx3")
    failed = (parse_failed(os.path.join(outdir, "icount.log"))
              + parse_failed(os.path.join(outdir, "cx3.log")))
    wall = parse(os.path.join(outdir, "wall.log"))
    res = derive(runs, wall)
    prof = prof_parse(os.path.join(outdir, "perf.log"), res)
    kc = ktime_cost(prof)
    # ktime_get_ns() + accounting left outside each timed section: bound
    kbound = (kc if kc else 60.0) + 10.0
    xdp_costs(res, kbound)
    for c in res:
        if "timed_sections_pkt" in c:
            c["residual_insn_pkt"] = c["timed_sections_pkt"] * kbound
    return runs, failed, wall, res, prof, kc, kbound


def present(res):
    """The rows of res in table order, and the bursts of the burst sweep."""
    order = ["dummy", "e1000e", "virtio", "cx3-db", "cx3-bf", "cx3-db-opt1",
             "cx3-db-opt3", "cx3-db-inline", "cx3-bf-inline", "cx5", "cx5-mpwqe",
             "cx5-mpwqe-inline", "cx5-bf", "cx4", "xdp-drop", "xdp-drop-f", "xdp-tx",
             "xdp-tx-pp",
             FLOOR_Q35, "mlx4_en", "mlx4_en-norx", "cx3-hw", "cx3-hw-norx"]
    rows = [r for r in order if any(c["row"] == r for c in res)]
    rows += sorted({c["row"] for c in res} - set(rows))
    bursts = sorted({c["burst"] for c in res if c["sweep"] == "burst"})
    return rows, bursts


def analyze(outdir):
    """DIR's results: failed.txt, bench.csv, table.md (printed too) and
    the plot; 1 if DIR has no @@bench line."""
    runs, failed, wall, res, prof, kc, kbound = load(outdir)
    with open(os.path.join(outdir, "failed.txt"), "w") as f:
        for row, why in failed:
            f.write(f"{row} {why}\n")
    if not runs:
        print(f"bench: no @@bench lines in {outdir}/icount.log or cx3.log",
              file=sys.stderr)
        return 1

    write_csv(os.path.join(outdir, "bench.csv"), res)
    rows, bursts = present(res)
    # the XDP rows have their own table (their sender is another port)
    xrows = [r for r in rows if r in XDP_ROWS]
    rows = [r for r in rows if r not in XDP_ROWS]
    md = [f"Measured on commit {commit_md(outdir)}.\n"]
    md += tables_md(res, rows, xrows, bursts, failed, wall)
    md += reference_md(res)
    tg = [t[1:] for t in targets(Run(res, rows, bursts, outdir))]
    md += targets_md(tg, kc, kbound)
    if model is not None:
        md.append("\n" + model.model_section(res).strip() + "\n")
    else:
        md.append(f"\n(cost model unavailable: {MODEL_ERROR})\n")
    md += itrace_md(outdir)
    if prof:
        md.append("\n### Profile\n")
        md.append(prof_text(prof, res))
    tim = os.path.join(outdir, "timings")
    if os.path.exists(tim):
        md.append("\n### Timings (wall seconds)\n")
        md.append(" ".join(f"{l.split()[0]} {l.split()[1]} s;"
                           for l in open(tim) if l.strip()))
    png = plot(res, rows, bursts, outdir)
    if png:
        md.append(f"\nPlot: {png}")
    text = "\n".join(md) + "\n"
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(text)
    print(text)
    # a MISSED target is a result, not a failure of the analysis
    return 0


def write_csv(path, res):
    """Every record of res, a line each, the columns of CSV_COLS."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLS)
        for c in res:
            w.writerow([fmt(c.get(k), 3) if isinstance(c.get(k), float)
                        else ("" if c.get(k) is None else c.get(k)) for k in CSV_COLS])


def tables_md(res, rows, xrows, bursts, failed, wall):
    """The Markdown lines of the measurement tables: driver cost, whole
    path, failed rows, the sim's own share, doorbells and counts per
    packet, the model's rows, the XDP rows (xrows, not in rows), wall
    clock, the growth sweeps."""
    count = max(c["pkts"] for c in res)

    def get(row, b, col, sweep="burst", size=60):
        return lookup(res, row, b, col, sweep, size)

    md = []
    md.append(f"### Driver instructions per packet\n\n"
              f"Whole-path guest instructions per packet minus, for cxbell, the "
              f"sim's engine_ns and dma_ns per packet, minus dummy's whole path "
              f"at the same burst (mlx4_en, cx3-hw: the ConnectX-3 model's boot, "
              f"minus that boot's dummy, dummy-q35, alone: the model runs "
              f"outside the guest; the path includes port 2's receive, except "
              f"in the -norx rows). "
              f"virtio_net includes the guest waiting for "
              f"QEMU's asynchronous virtqueue drain (not a pure driver cost). "
              f"Up to ~{count} packets per point.\n")
    md.append(matrix(res, rows, bursts, "driver_insn_pkt", 0, "row \\ burst"))
    md.append("\n### Whole path (pktgen elapsed guest ns / packets)\n")
    md.append(matrix(res, rows, bursts, "path_insn_pkt", 0, "row \\ burst"))
    if failed:
        md.append("\n### Failed rows\n")
        md.append("| row | why |\n|---|---|")
        for row, why in failed:
            md.append(f"| {row} | FAILED: {why} |")
    cxrows = [r for r in rows if is_sim(r)]
    if cxrows:
        md.append("\n### Sim engine and IOMMU model per packet (subtracted)\n")
        md.append(matrix(res, cxrows, bursts, "engine_insn_pkt", 0, "engine_ns/pkt"))
        md.append("")
        md.append(matrix(res, cxrows, bursts, "dma_insn_pkt", 0, "dma_ns/pkt"))
        md.append("")
        md.append(matrix(res, cxrows, bursts, "residual_insn_pkt", 0,
                         "residual bound/pkt"))
        md.append("\n### Doorbells + BlueFlame posts per packet (virtio: kicks)\n")
        rr = cxrows + (["virtio"] if "virtio" in rows else [])
        tmp = [dict(c) for c in res]
        for c in tmp:
            if c["row"] == "virtio":
                c["dbbf_pkt"] = c["kicks_pkt"]
        md.append(matrix(tmp, rr, bursts, "dbbf_pkt", 4, "row \\ burst"))
        b0 = 32 if 32 in bursts else bursts[-1]
        md.append(f"\n### Counts per packet at burst {b0}\n")
        cols = [("doorbells_pkt", "doorbells", 4), ("bf_pkt", "BF posts", 4),
                ("mmio_bytes_pkt", "MMIO B", 2), ("pcie_desc_pkt", "desc rd B", 1),
                ("pcie_data_pkt", "data rd B", 1), ("pcie_cqe_pkt", "CQE wr B", 1),
                ("pcie_dbrec_pkt", "db rec rd B", 2), ("pcie_tlp_pkt", "TLP ovh B", 1),
                ("pcie_total_pkt", "PCIe total B", 1),
                ("pcie_in_pkt", "PCIe in B", 1), ("cqes_pkt", "CQEs", 3),
                ("irqs_pkt", "irqs", 4), ("napi_pkt", "NAPI polls", 4),
                ("deferred_pkt", "deferred", 4), ("by_completion_pkt", "db by compl", 4)]
        md.append("| row | " + " | ".join(h for _, h, _ in cols) + " |")
        md.append("|---|" + "---:|" * len(cols))
        for row in rows:
            md.append(f"| {row} | " + " | ".join(
                fmt(get(row, b0, k), nd) for k, _, nd in cols) + " |")
        md.append("\n(dummy, e1000e, virtio: irqs from /proc/interrupts; their "
                  "doorbell, PCIe and NAPI counts are not available.)")
    mrows = [r for r in rows if r in MODEL_ROWS]
    if mrows:
        md.append("\n### QEMU ConnectX-3 model rows (second icount boot, vm-run --cx3)\n")
        md.append("pktgen on port 1 to port 2's MAC (cabled; both ports up, one TX "
                  "ring, default moderation, BlueFlame on; -norx: to a MAC port 2 "
                  "has no steering rule for, so the model drops every frame and "
                  "no receive path runs in the guest). Per packet, from the "
                  "model's counters (both ports: port 2's receive adds its CQEs, "
                  "interrupts and DMA writes): send doorbells (sq_doorbells, or "
                  "doorbells - cq_arms - EQ doorbells, one per interrupt, as "
                  "cx3-stock.sh), BlueFlame writes, WQEs, CQEs, EQEs, interrupts, "
                  "CQ arms, PCIe payload bytes into the device (MMIO + DMA reads) and "
                  "out of it (DMA writes), frames the receiver dropped; pause: "
                  "802.3x pause (off; fixed-on: the driver has no ethtool -A), "
                  "paused: the model's tx_paused.\n")
        cols = [("path_insn_pkt", "path", 0), ("floor_insn_pkt", "floor", 0),
                ("driver_insn_pkt", "driver", 0), ("doorbells_pkt", "send db", 4),
                ("bf_pkt", "BF", 4), ("wqes_pkt", "WQEs", 3), ("cqes_pkt", "CQEs", 3),
                ("eqes_pkt", "EQEs", 4), ("irqs_pkt", "irqs", 4),
                ("cq_arms_pkt", "CQ arms", 4), ("pcie_in_pkt", "PCIe in B", 1),
                ("pcie_out_pkt", "PCIe out B", 1), ("rx_dropped_pkt", "rx drop", 4),
                ("pause", "pause", 0), ("tx_paused", "paused", 0)]
        md.append("| row | burst | " + " | ".join(h for _, h, _ in cols) + " |")
        md.append("|---|---:|" + "---:|" * len(cols))
        for row in mrows:
            for b in bursts:
                if get(row, b, "path_insn_pkt") is None:
                    continue
                md.append(f"| {row} | {b} | " + " | ".join(
                    fmt(get(row, b, k), nd) for k, _, nd in cols) + " |")
        srcs = sorted({c.get("sq_db_source") for c in res if c["row"] in MODEL_ROWS})
        md.append(f"\n(send doorbells from: {', '.join(s for s in srcs if s)})")
    if xrows:
        md.append("\n### XDP on port 1 of a 2-port cx3 adapter (pktgen on port 0)\n")
        md.append("XDP cost = whole path less engine_ns, dma_ns and the "
                  "residual bound of the sim's timed sections, less the "
                  "same for cx3-db (xdp-drop, xdp-drop-f) or xdp-drop-f "
                  "(xdp-tx, xdp-tx-pp: port 0 drops the returned frames with "
                  "xdp-drop-f's program). Doorbells and polls are "
                  "port 1's (tx_xdp_doorbells, napi_polls). xdp-tx-pp rings "
                  "per frame (debugfs xdp_tx_doorbell_per_packet 1).\n")
        md.append("| row | burst | whole path | engine | XDP cost insn/pkt | "
                  "XDP doorbells/pkt | polls/pkt |\n|---|---:|---:|---:|---:|---:|---:|")
        for row in xrows:
            for b in bursts:
                if get(row, b, "path_insn_pkt") is None:
                    continue
                md.append(f"| {row} | {b} | {fmt(get(row, b, 'path_insn_pkt'))} | "
                          f"{fmt(get(row, b, 'engine_insn_pkt'))} | "
                          f"{fmt(get(row, b, 'xdp_cost_pkt'))} | "
                          f"{fmt(get(row, b, 'xdp_db_pkt'), 4)} | "
                          f"{fmt(get(row, b, 'xdp_polls_pkt'), 4)} |")
    if wall:
        md.append("\n### Wall-clock Mpps (TCG without icount, 1 vCPU: NOISY, "
                  "never used for targets)\n")
        md.append(matrix(res, rows, bursts, "wall_mpps", 3, "row \\ burst"))
    for sweep, var, lab in (("ring", "ring", "TX ring size (TXBBs)"),
                            ("size", "size", "packet size (B)"),
                            ("queues", "queues",
                             "TX queues (one pktgen thread, one CPU; "
                             "floor: dummy with 8 TX queues)")):
        sw = [c for c in res if c["sweep"] == sweep]
        if not sw:
            continue
        md.append(f"\n### Growth: {lab}, burst 32\n")
        md.append(f"| row | {var} | whole path | engine | dma | driver | "
                  f"dbbf/pkt | PCIe B/pkt |\n|---|---:|---:|---:|---:|---:|---:|---:|")
        for c in sw:
            if sweep == "size":
                fl = get("dummy", 32, "path_insn_pkt", "size", c["size"])
            elif sweep == "queues":
                fl = c["floor_insn_pkt"]
            else:
                fl = get("dummy", 32, "path_insn_pkt")
            drv = None
            if c["row"].startswith("dummy"):
                drv = 0.0
            elif fl is not None:
                drv = c["path_insn_pkt"] - c["engine_insn_pkt"] - c["dma_insn_pkt"] - fl
            md.append(f"| {c['row']} | {c[var]} | {fmt(c['path_insn_pkt'])} | "
                      f"{fmt(c['engine_insn_pkt'])} | {fmt(c['dma_insn_pkt'])} | "
                      f"{fmt(drv)} | {fmt(c.get('dbbf_pkt'), 4)} | "
                      f"{fmt(c.get('pcie_total_pkt'), 1)} |")

    return md


def reference_md(res):
    """The peers' whole path against REFERENCE."""
    md = ["\n### Reference reproduction (whole path insn/pkt: measured / reference)\n"]
    md.append("| row | " + " | ".join(f"burst {b}" for b in (1, 8, 32, 64)) + " |")
    md.append("|---|" + "---:|" * 4)
    for row, ref in REFERENCE.items():
        cells = []
        for b in (1, 8, 32, 64):
            v = lookup(res, row, b, "path_insn_pkt")
            cells.append(f"{fmt(v)} / {ref[b]}" + (
                f" ({(v - ref[b]) / ref[b] * 100:+.1f}%)" if v else ""))
        md.append(f"| {row} | " + " | ".join(cells) + " |")
    return md


def targets_md(tg, kc, kbound):
    """The Targets table of tg [(name, met, figure)], and the residual
    bound it used."""
    md = ["\n### Targets\n"]
    md.append("| target | result | figure |\n|---|---|---|")
    for name, ok, fig in tg:
        md.append(f"| {name} | {'met' if ok else 'MISSED'} | {fig} |")
    if kc:
        md.append(f"\nResidual bound per timed sim section: {kbound:.0f} insn "
                  f"(one ktime_get_ns() = {kc:.0f} insn from the profile, + 10 "
                  f"for the accounting).")
    return md


def itrace_md(outdir):
    """The tables of every bench/itrace result in outdir."""
    md = []
    for it in sorted(glob.glob(os.path.join(outdir, "itrace-*.txt"))):
        lines = open(it).read().splitlines()
        head = lines[0].lstrip("# ") if lines else ""
        md.append("\n### Exact instruction trace\n")
        md.append(f"`bench/itrace`: every instruction of whole burst cycles "
                  f"(from one entry of the NAPI poll to the next) single-stepped "
                  f"with QEMU's gdbstub in the -icount guest, interrupts and "
                  f"timers masked; {head}. Driver = under cxb_* functions, "
                  f"including the kernel functions they call (DMA API, skb "
                  f"free, BQL, NAPI); engine = under the sim's timed entry "
                  f"points; simdma = its DMA ops. Top 25 functions by their "
                  f"own instructions:\n")
        tables, cur = [], []
        for l in lines[2:]:
            if l.startswith("|"):
                cur.append(l)
            elif cur:
                tables.append(cur)
                cur = []
        if cur:
            tables.append(cur)
        for t in tables:
            md.append("\n".join(t[:27]))
            md.append("")
    return md


# The head of Documentation/benchmarks.md (the method), beside this file:
# a template for str.format(), its leading comment dropped.
METHOD_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "METHOD.md")


def method_md(**fields):
    """METHOD.md filled in with fields (rel, kver, commit)."""
    text = open(METHOD_FILE).read()
    if text.startswith("<!--"):
        text = text[text.index("-->\n") + 4:]
    return text.format(**fields)


def commit_md(outdir):
    """The commit the run in outdir measured (commit_lines()), for
    Markdown."""
    lines = commit_lines(outdir)
    if not lines or not lines[0].strip():
        return "unknown (the run predates bench/run recording it)"
    h, _, subject = lines[0].strip().partition(" ")
    text = f"`{h}` (\"{subject}\")" if subject else f"`{h}`"
    if "uncommitted changes" in lines[1:]:
        text += " with uncommitted changes"
    return text


README_ROWS = (("e1000e", "e1000e (QEMU)"), ("virtio", "virtio_net (QEMU)"),
               ("cx3-db", "cxbell sim cx3, doorbell (cx3-db)"),
               ("cx3-bf", "cxbell sim cx3, BlueFlame (cx3-bf)"),
               ("cx3-db-opt1", "cxbell sim cx3, doorbell_opt 1 (cx3-db-opt1)"),
               ("cx3-db-inline", "cxbell sim cx3, inline 464 (cx3-db-inline)"),
               ("cx5", "cxbell sim cx5, a WQE per packet (cx5)"),
               ("cx5-mpwqe", "cxbell sim cx5, MPWQE (cx5-mpwqe)"),
               ("cx5-mpwqe-inline",
                "cxbell sim cx5, MPWQE inline (cx5-mpwqe-inline)"),
               ("cx5-bf", "cxbell sim cx5, BlueFlame (cx5-bf)"),
               ("cx4", "cxbell sim cx4, L2 headers inline (cx4)"),
               ("mlx4_en", "mlx4_en (ConnectX-3 model)"),
               ("cx3-hw", "cxbell_mlx4 (ConnectX-3 model, cx3-hw)"),
               ("mlx4_en-norx", "mlx4_en, no receiver (model)"),
               ("cx3-hw-norx", "cxbell_mlx4, no receiver (model, cx3-hw-norx)"))
README_BEGIN = "<!-- bench-summary: generated by bench/run --publish -->"
README_END = "<!-- bench-summary end -->"


def readme_summary(outdir, rel):
    """The README's summary: driver insn/pkt at four bursts, the targets."""
    with open(os.path.join(outdir, "bench.csv")) as f:
        recs = [r for r in csv.DictReader(f)
                if r["sweep"] == "burst" and r["rep"] == "1" and r["size"] == "60"]
    by = {(r["row"], int(r["burst"])): r for r in recs}
    failed = {}
    fp = os.path.join(outdir, "failed.txt")
    if os.path.exists(fp):
        for line in open(fp):
            row, _, why = line.rstrip("\n").partition(" ")
            failed[row] = why
    bursts = [b for b in (1, 8, 32, 128) if any(k[1] == b for k in by)]
    out = [README_BEGIN, "",
           f"Measured on commit {commit_md(outdir)}.", "",
           f"From `{rel}` (`make bench`: icount guest, 60-byte packets, one "
           "queue, 1-port sim adapter). Driver cost = whole-path guest "
           "instructions per packet minus the sim's self-accounted time "
           "minus the dummy floor at the same burst. The ConnectX-3 model "
           "rows (second icount boot, vm-run --cx3; pktgen from port 1 to "
           "port 2, so their path includes port 2's receive; no receiver: "
           "to a MAC port 2 drops) subtract only that boot's dummy floor:",
           "",
           "| driver insn/pkt (burst) | " + " | ".join(str(b) for b in bursts) + " |",
           "|---|" + "---:|" * len(bursts)]
    for row, name in README_ROWS:
        cells = []
        for b in bursts:
            r = by.get((row, b))
            v = r["driver_insn_pkt"] if r else ""
            cells.append(f"{float(v):.0f}" if v else "n/a")
        if any(c != "n/a" for c in cells):
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        elif row in failed:
            out.append(f"| {name} | FAILED: {failed[row]} |"
                       + " |" * (len(bursts) - 1))
    t = open(os.path.join(outdir, "table.md")).read()
    m = re.search(r"\n### Targets\n\n(\|.*?)\n\n", t, re.S)
    if m:
        tgt = [l for l in m.group(1).splitlines() if "informational" not in l]
        out += ["", "Targets of the benchmark, from the same run:", ""] + tgt
    out += ["", README_END]
    return "\n".join(out)


def publish_readme(readme, outdir, rel):
    text = open(readme).read()
    i, j = text.find(README_BEGIN), text.find(README_END)
    if i < 0 or j < i:
        print(f"bench: {readme}: no summary markers, not updated", file=sys.stderr)
        return
    text = text[:i] + readme_summary(outdir, rel) + text[j + len(README_END):]
    with open(readme, "w") as f:
        f.write(text)
    print(f"bench: wrote the summary in {readme}", file=sys.stderr)


def publish(doc, outdir):
    outdir = os.path.realpath(outdir)
    t = os.path.join(outdir, "table.md")
    if not os.path.exists(t):
        if analyze(outdir):
            return 1
    top = os.path.abspath(os.path.join(os.path.dirname(doc), ".."))
    rel = os.path.relpath(os.path.abspath(outdir), top)
    kver = "6.1"
    try:
        kver = subprocess.run([os.path.join(top, "scripts/kver.sh")],
                              capture_output=True, text=True).stdout.strip() or kver
    except OSError:
        pass
    body = open(t).read()
    body = re.sub(r"\nPlot: .*\n", "\n", body)
    png = os.path.join(outdir, "bench.png")
    if os.path.exists(png):
        shutil.copyfile(png, os.path.join(os.path.dirname(doc), "benchmarks.png"))
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md")
    extra = open(notes).read() if os.path.exists(notes) else ""
    with open(doc, "w") as f:
        f.write(method_md(rel=rel, kver=kver, commit=commit_md(outdir)))
        f.write(body)
        if extra:
            f.write("\n" + extra)
    print(f"bench: wrote {doc}", file=sys.stderr)
    publish_readme(os.path.join(top, "README.md"), outdir, rel)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "--publish":
        return publish(argv[1], argv[2])
    if len(argv) == 1:
        return analyze(argv[0])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
