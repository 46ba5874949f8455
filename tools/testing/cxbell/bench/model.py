#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Project bench.csv counts onto a reference host: Mpps and its limit.

  model.py DIR          print the model section for DIR/bench.csv

Per packet, on the reference host:

  cpu  = (pktgen+stack insn + driver insn) / IPC / clock
         + doorbells x DB_NS + BlueFlame posts x BF_NS
  Mpps = 1000 / max(cpu, PCIe in, PCIe out, wire)   (ns per packet each)

PCIe "in" is host -> device (the MPWQE patch's "inbound": MMIO writes
and read completions), "out" device -> host (read requests, CQEs,
MSI-X). Every constant and its source: MODEL.md next to this file.

The published figures come from these netdev threads and patches
(SOURCES; the comments below name them by their short names):
  xmit_more thread  "pktgen: packet bursting via skb->xmit_more" (Alexei
                    Starovoitov, with Eric Dumazet's replies and the mlx4
                    xmit_more/inline v2 cover letter discussion)
  MPWQE patch       "net/mlx5e: Enhanced TX MPWQE for SKBs" (Maxim
                    Mikityanskiy)
  XDP series        "mlx5 RX refactoring and XDP support" (Saeed
                    Mahameed; RFC 11/11: XDP_TX doorbell batching)
  auto doorbell RFC "[WIP] net+mlx4: auto doorbell" (Jesper Dangaard
                    Brouer, Eric Dumazet)
"""
import csv
import os
import sys

# Source column of the validation table, by key
SOURCES = {
    "xmit_more": "pktgen: packet bursting via skb->xmit_more",
    "inline": "pktgen: packet bursting via skb->xmit_more "
              "(mlx4 v2 cover letter)",
    "auto-db": "[WIP] net+mlx4: auto doorbell",
    "mpwqe": "net/mlx5e: Enhanced TX MPWQE for SKBs",
    "xdp": "mlx5 RX refactoring and XDP support (RFC 11/11)",
}

# --- reference host (MPWQE patch: Xeon E5-2680 v3, mlx5, pktgen 64 B,
# burst 32)
IPC = 2.70         # MPWQE patch: "Instructions per cycle: 2.70" (MPWQE off)
CLOCK_GHZ = 2.65   # MPWQE patch: 156 cycles/pkt x 16.96 Mpps = 2.65 GHz
                   # effective (nominal 2.5 GHz; turbo); 421 insn / 2.70 /
                   # 2.65 = 16.96 Mpps
# --- MMIO costs on the CPU, ns per write (see MODEL.md for the derivations)
DB_NS = 69.0       # xmit_more thread, ixgbe "usec 30": 1/9.2 - 1/13.6 Mpps =
                   # 35 ns/pkt for half a tail write each -> <= ~70 ns per
                   # tail write (rounded to <= ~69); the XDP series' XDP_TX
                   # gives 72 ns, close
BF_NS = 75.0       # ASSUMPTION: 64 B write-combining copy + sfence; the auto
                   # doorbell RFC's 5.71 -> 9.99 Mpps saves 75 ns/pkt when mlx4
                   # (BlueFlame on by default) stops posting per packet. No
                   # direct public figure.
TX_COAL_FRAMES = 16  # mlx4_en.h MLX4_EN_TX_COAL_PKTS (3.x/4.x kernels): real
                     # host TX completion moderation (host timing variant only)
NAPI_BUDGET = 64   # NAPI_POLL_WEIGHT; XDP series: XDP_TX rings once per RX poll
# --- PCIe (pcie-bench: Neugebauer et al., SIGCOMM 2018, and its pcie-model)
PCIE_GTS, PCIE_ENC, PCIE_LANES = 8.0, 128 / 130, 8  # Gen3 x8 (ConnectX-3)
PCIE_DLLP = 8 / 203 + 8 / 203 + 4 / 1538  # ACK + FC update DLLPs + SKIP
                                          # (pcie-model, gen3 x8, MPS 256)
TLP_RQ_OVH = 24    # MWr/MRd: 2 framing + 6 seq/LCRC + 4 hdr + 12 (64-bit addr)
TLP_CPL_OVH = 20   # CplD: 2 + 6 + 4 + 8
MPS, MRRS = 256, 512  # common server defaults; the sim uses MPS 256
MSI_BYTES = 4      # MSI-X message: one 4-byte MWr
SIM_TLP_OVH = 24   # what the sim charges per TLP (Documentation/sim.rst)
# --- wire
WIRE_GBPS = {"cx3": 40.0, "e1000e": 1.0}  # ConnectX-3 EN 40GbE; 82574 1GbE
FCS, PRE_IFG = 4, 20  # 802.3: 4 B FCS; 7 preamble + 1 SFD + 12 IFG
# --- pktgen+stack when the dummy floor is missing: a + c/burst fitted to the
# dummy reference figures (analyze.py REFERENCE: 231 @1, 85 @8, 69 @32,
# 67 @64 guest insn/pkt)
FLOOR_A, FLOOR_C = 63.8, 167.2
# --- MPWQE (MPWQE patch; mlx5 enhanced MPWQE layout)
MPWQE_HDR, MPWQE_DSEG = 32, 16  # shared ctrl+eth segment, 16 B per packet
GEN2_X16_GBS = 5.0 * 0.8 * 16 / 8  # its Gen2 link, raw GB/s (x16 assumed)
REF_MPWQE_MPPS = 36.864  # MPWQE patch: Gen2 fixed rate, Mpps
TXBB = 64
# --- XDP (XDP series, same E5-2680 v3 host as the MPWQE patch): XDP fast
# drop, one stream, 13.5 Mpps = 74 ns/pkt: the receive side of the XDP_TX path
REF_XDP_DROP_MPPS = 13.5


def num(rec, key, default=None):
    v = rec.get(key)
    if v is None or v == "":
        return default
    try:
        return float(v)
    except ValueError:
        return default


def pcie_gbs():
    """TLP-layer bandwidth per direction, bytes per ns (= GB/s)."""
    return PCIE_GTS * PCIE_ENC * PCIE_LANES * (1 - PCIE_DLLP) / 8


def tlps(rec):
    """TLPs per packet by kind, estimated from the sim's byte classes (the
    sim charges SIM_TLP_OVH for every TLP and keeps only the sum)."""
    db, bf = num(rec, "doorbells_pkt", 0), num(rec, "bf_pkt", 0)
    napi, mmio = num(rec, "napi_pkt", 0), num(rec, "mmio_bytes_pkt", 0)
    bf_bytes = max(0.0, mmio - 4 * db - 2 * 8 * napi)  # doorbell 4, 2 CQ arms 8
    mmio_t = db + 2 * napi + bf_bytes / 64      # a WC post leaves in 64 B lines
    cqe_t = num(rec, "cqes_pkt", 0)
    rd_b = sum(num(rec, k, 0) for k in ("pcie_desc_pkt", "pcie_data_pkt",
                                        "pcie_dbrec_pkt"))
    x = max(0.0, num(rec, "pcie_tlp_pkt", 0) / SIM_TLP_OVH - mmio_t - cqe_t)
    cpl = max(x / 2, rd_b / MPS)                # reads + completions = x
    return {"mmio": mmio_t, "cqe": cqe_t, "rd": x - cpl, "cpl": cpl,
            "rd_bytes": rd_b}


def pcie_bytes(rec, t=None):
    """(host->device, device->host) bytes per packet, pcie-bench overheads."""
    if num(rec, "pcie_total_pkt") is None:
        return None, None
    t = t or tlps(rec)
    into = (t["rd_bytes"] + t["cpl"] * TLP_CPL_OVH
            + num(rec, "mmio_bytes_pkt", 0) + t["mmio"] * TLP_RQ_OVH)
    out = (t["rd"] * TLP_RQ_OVH + num(rec, "pcie_cqe_pkt", 0)
           + t["cqe"] * TLP_RQ_OVH
           + num(rec, "irqs_pkt", 0) * (MSI_BYTES + TLP_RQ_OVH))
    return into, out


def floor_insn(rec):
    f = num(rec, "floor_insn_pkt")
    return f if f is not None else FLOOR_A + FLOOR_C / num(rec, "burst", 1)


def project(rec, poll_insn=None):
    """One bench.csv record -> dict(mpps, limit, ns={bound: ns/pkt}, cpu
    breakdown, pcie_in_B, pcie_out_B), or None without a driver figure.

    poll_insn (host timing variant, None = off): instructions per NAPI poll
    in the record's driver figure; polls beyond one per TX_COAL_FRAMES
    packets (the real NIC's completion moderation) are removed, and a
    doorbell_opt row rings at most once per remaining poll."""
    row = rec.get("row", "")
    drv = num(rec, "driver_insn_pkt")
    if drv is None or row in ("dummy", "virtio"):
        return None
    drv -= num(rec, "residual_insn_pkt", 0)   # ktime_get_ns() leak, not driver
    cx = row.startswith("cx3")
    burst = num(rec, "burst", 1)
    db = num(rec, "doorbells_pkt", 0 if cx else 1 / burst)  # e1000e: tail/burst
    bf = num(rec, "bf_pkt", 0)
    napi = num(rec, "napi_pkt")
    if poll_insn is not None and napi is not None:
        host = min(napi, 1 / TX_COAL_FRAMES)
        drv -= poll_insn * (napi - host)
        if "opt" in row:
            db = min(db, host)
    k = 1 / (IPC * CLOCK_GHZ)
    cpu = {"stack": floor_insn(rec) * k, "driver": max(drv, 0) * k,
           "doorbell": db * DB_NS, "bf": bf * BF_NS}
    ns = {"cpu": sum(cpu.values())}
    pin, pout = pcie_bytes(rec) if cx else (None, None)
    if pin is not None:
        ns["pcie-in"] = pin / pcie_gbs()
        ns["pcie-out"] = pout / pcie_gbs()
    gbps = WIRE_GBPS.get("cx3" if cx else row)
    if gbps:
        frame = max(num(rec, "size", 60) + FCS, 64)
        ns["wire"] = (frame + PRE_IFG) * 8 / gbps
    limit = max(ns, key=ns.get)
    return {"mpps": 1000 / ns[limit], "limit": limit, "ns": ns, "cpu": cpu,
            "pcie_in_B": pin, "pcie_out_B": pout}


def mpwqe_pcie_in(rec, n=None):
    """Host->device bytes per packet if the record's WQEs were one enhanced
    MPWQE per burst (n packets, ctrl+eth shared, 16 B pointer per packet);
    everything else (data reads, the sim's extra TXBB per burst, MMIO) kept."""
    b = num(rec, "burst", 1)
    n = n or b
    t = tlps(rec)
    old = num(rec, "pcie_desc_pkt", 0)
    wqe = MPWQE_HDR + MPWQE_DSEG * n
    new = wqe / n + TXBB / b
    ceil = lambda a, c: -(-a // c)
    cpl = (t["cpl"] - old / TXBB             # one 64 B completion per TXBB read
           + ceil(wqe, MPS) / n + 1 / b)     # the MPWQE and the extra TXBB
    rd = t["rd"] - old / TXBB + ceil(wqe, MRRS) / n + 1 / b
    t2 = dict(t, rd_bytes=t["rd_bytes"] - old + new, cpl=cpl, rd=rd)
    return pcie_bytes(rec, t2)[0]


# --------------------------------------------------------------- Markdown
def pick(records, row, burst):
    for r in records:
        if (r.get("row") == row and int(num(r, "burst", 0)) == burst
                and r.get("sweep", "burst") == "burst"
                and int(num(r, "rep", 1)) == 1 and int(num(r, "size", 60)) == 60):
            return r
    return None


def poll_cost(records, row):
    """Least-squares slope of (driver - residual) insn vs NAPI polls/pkt
    over the row's bursts: the sim's cost per poll (+ its doorbell)."""
    pts = []
    for r in records:
        if r.get("row") == row and r.get("sweep", "burst") == "burst":
            n, d = num(r, "napi_pkt"), num(r, "driver_insn_pkt")
            if n is not None and d is not None:
                pts.append((n, d - num(r, "residual_insn_pkt", 0)))
    if len({p[0] for p in pts}) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return max(0.0, sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx)


def proj(records, row, burst, host=False):
    r = pick(records, row, burst)
    if r is None:
        return None
    pc = poll_cost(records, row) if host else None
    if host and pc is None:
        return None
    return project(r, pc)


def verdict(model, pub):
    if model is None:
        return "pending"
    return "met" if abs(model / pub - 1) <= 0.15 else "MISSED"


def off(model, pub):
    return (f"{(model / pub - 1) * 100:+.0f}% vs the published ratio, "
            f"{verdict(model, pub)}")


def cell(x, missing):
    """(ratio, text) of a (before, after) Mpps pair, or a note string."""
    if isinstance(x, str):
        return None, x
    if not x:
        return None, missing
    return x[1] / x[0], f"{x[1] / x[0]:.2f} ({x[0]:.2f} -> {x[1]:.2f})"


def mpps_table(records, rows, bursts, host):
    out = ["| row \\ burst | " + " | ".join(str(b) for b in bursts) + " |",
           "|---|" + "---:|" * len(bursts)]
    for row in rows:
        cells = []
        for b in bursts:
            p = proj(records, row, b, host)
            cells.append(f"{p['mpps']:.2f} {p['limit']}" if p else "")
        if any(cells):
            out.append(f"| {row} | " + " | ".join(cells) + " |")
    return out


def model_section(records):
    """Markdown: projected Mpps per row x burst, and the validation
    against the published ratios (SOURCES)."""
    rows = [r for r in ("cx3-db", "cx3-bf", "cx3-db-opt1", "cx3-db-opt3",
                        "cx3-db-inline", "cx3-bf-inline", "e1000e")
            if any(x.get("row") == r for x in records)]
    # (not cx3-hw: a row on the QEMU ConnectX-3 model, whose path
    # includes port 2's receive and which has no sim PCIe counts)
    rows += sorted({x.get("row") for x in records if x.get("row", "").startswith("cx3")}
                   - set(rows) - {"cx3-hw", "cx3-hw-norx"})
    bursts = sorted({int(num(x, "burst", 0)) for x in records
                     if x.get("sweep", "burst") == "burst"})
    md = [f"### Projected Mpps on the reference host (model.py)\n",
          f"cpu = (dummy floor + driver - residual) insn / {IPC:.2f} IPC / "
          f"{CLOCK_GHZ} GHz + doorbells x {DB_NS:.0f} ns + BF posts x "
          f"{BF_NS:.0f} ns; PCIe Gen3 x{PCIE_LANES} ({pcie_gbs():.2f} GB/s per "
          f"direction after DLLPs), pcie-bench TLP overheads; wire 40 GbE "
          f"(e1000e: 1 GbE). Cell: Mpps and the bound that limits it. "
          f"Constants and sources: tools/testing/cxbell/bench/MODEL.md.\n"]
    plain = mpps_table(records, rows, bursts, False)
    md += plain if len(plain) > 2 else ["(no cxbell or e1000e row with a "
                                        "driver figure in this run)"]
    host = mpps_table(records, [r for r in rows if r.startswith("cx3")],
                      bursts, True)
    if len(host) > 2:
        md.append(f"\nHost timing variant: the sim completes every burst at "
                  f"once (one interrupt, NAPI poll and 2 CQ arms per burst); "
                  f"here polls beyond one per {TX_COAL_FRAMES} packets (mlx4's "
                  f"TX moderation) are removed at the row's fitted cost per "
                  f"poll, and doorbell_opt rows ring once per poll.\n")
        md += host
    e = [(x, proj(records, "e1000e", x)) for x in bursts]
    e = [(x, 1000 / p["ns"]["cpu"]) for x, p in e if p]
    if e:
        md.append("\ne1000e (82574, 1 GbE) is wire bound; its CPU bound alone: "
                  + ", ".join(f"{m:.2f} Mpps at burst {x}" for x, m in
                              (e[0], e[-1])[:len(e)])
                  + " (one tail write per burst assumed; no PCIe counts).")
    b = next((x for x in (32, 64, 128) if x in bursts), None)
    ref = pick(records, "cx3-db", b) if b else None
    p = project(ref) if ref else None
    if p:
        parts = list(p["cpu"].items()) + list(p["ns"].items())
        md.append(f"\nBreakdown, cx3-db at burst {b} (ns/pkt): "
                  + ", ".join(f"{k} {v:.1f}" for k, v in parts)
                  + (f"; PCIe {p['pcie_in_B']:.0f} B in, {p['pcie_out_B']:.0f} "
                     "B out per packet." if p["pcie_in_B"] else "."))
    md += ["\n### Model vs published ratios\n",
           "Met: model ratio within 15% of the published one. Model = the "
           "formula above on the measured rows; host timing = the variant. "
           "Sources: netdev threads and patches, by title.\n",
           "| effect | source | published: before -> after | published ratio "
           "| model | host timing / formula | verdict | why |",
           "|---|---|---|---:|---:|---:|---|---|"]
    for name, src, before, after, m, h, why in validations(records, b):
        pub = after / before
        rm, mtxt = cell(m, "pending (row not measured yet)")
        rh, htxt = cell(h, "n/a")
        v = verdict(rm, pub)
        if v == "met":
            why = ""
        elif v == "pending" and not isinstance(m, str):
            why = "rows not measured yet"
        if rh is not None:
            v += f"; host timing {verdict(rh, pub)}"
        md.append(f"| {name} | {SOURCES[src]} | {before} -> {after} "
                  f"| {pub:.2f} | {mtxt} | {htxt} | {v} | {why} |")
    return "\n".join(md) + "\n"


def validations(records, b):
    """(effect, SOURCES key, before, after, model pair|str, host pair|str,
    why)"""
    def pair(r1, b1, r2, b2, host=False):
        p, q = proj(records, r1, b1, host), proj(records, r2, b2, host)
        return (p["mpps"], q["mpps"]) if p and q else None
    def val(row, burst, key, default=0.0):
        r = pick(records, row, burst)
        return num(r, key, default) if r else default
    v = []
    xb = b or 32
    v.append(("xmit_more, mlx4 burst 1 -> 16 (cx3-db burst 1 -> %d)" % xb,
              "xmit_more",
              5.0, 10.0, pair("cx3-db", 1, "cx3-db", xb),
              pair("cx3-db", 1, "cx3-db", xb, True),
              f"the sim completes each burst at once: at burst 1, "
              f"{val('cx3-db', 1, 'napi_pkt'):.2f} NAPI polls and "
              f"{val('cx3-db', 1, 'irqs_pkt'):.2f} irqs per packet, each with 2 "
              "CQ arms; mlx4 moderates TX completions (16 frames), see host "
              "timing"))
    # The same model on the driver the thread measured: the stock mlx4_en
    # on the QEMU ConnectX-3 model, no receiver (its BlueFlame posts
    # priced as BF_NS), burst 1 -> 16 as in the thread.
    sm = pair("mlx4_en-norx", 1, "mlx4_en-norx", 16)
    smw = "rows not measured yet"
    stops = [x for x in (1, 16)
             if num(pick(records, "mlx4_en-norx", x) or {}, "queue_stopped", 0)]
    if sm and stops:
        # a stopped queue cuts a burst: not the point the thread measured
        sm = (f"not counted: mlx4_en-norx@{stops[0]} stopped its queue "
              f"({sm[1] / sm[0]:.2f}, {sm[0]:.2f} -> {sm[1]:.2f})")
        smw = "a point with a queue stop"
    elif sm:
        smw = (f"model on cxbell's cx3-db: {cell(pair('cx3-db', 1, 'cx3-db', xb), 'n/a')[1]}; "
               f"a leaner driver gains more from batching (the per-burst "
               f"doorbell and completion work is a larger share of less); "
               f"left of the stock driver's gap: the thread's 10 Mpps came "
               f"before its own false-sharing fixes (\"mlx4: optimize xmit "
               f"path\": 14.7 Mpps at burst 8), cache misses no instruction "
               f"count holds")
    v.append(("xmit_more, mlx4 burst 1 -> 16 (stock mlx4_en-norx, ConnectX-3 "
              "model, burst 1 -> 16)", "xmit_more", 5.0, 10.0,
              sm or "pending (row not measured yet)", "n/a", smw))
    v.append(("auto doorbell, burst 1 (cx3-db -> cx3-db-opt1)", "auto-db",
              5.71, 9.99, pair("cx3-db", 1, "cx3-db-opt1", 1),
              pair("cx3-db", 1, "cx3-db-opt1", 1, True),
              f"opt1 still rings {val('cx3-db-opt1', 1, 'doorbells_pkt'):.2f} "
              f"doorbells/pkt ({val('cx3-db-opt1', 1, 'deferred_pkt'):.2f} "
              "deferred): the sim's inline engine completes the WQE inside the "
              "doorbell write, so no completion is ever outstanding; host "
              "timing rings once per poll"))
    dd = val("cx3-db-inline", 8, "driver_insn_pkt") - val("cx3-db", 8, "driver_insn_pkt")
    v.append(("inline <= 104 B (cx3-db -> cx3-db-inline, burst 8)", "inline",
              14.9, 7.5, pair("cx3-db", 8, "cx3-db-inline", 8),
              pair("cx3-db", 8, "cx3-db-inline", 8, True),
              f"inline costs the driver {dd:+.0f} insn/pkt in the sim; mlx4's "
              "2014 drop (~66 ns/pkt) is not instructions: a wmb() between the "
              "two inline segments a 60 B frame needs and a 2-TXBB WQE; "
              "barriers are not in the model"))
    r = pick(records, "cx3-db", xb)
    s0, s1 = (u * GEN2_X16_GBS / REF_MPWQE_MPPS * 10 for u in (80.3, 59.0))
    mp, why = "pending (row not measured yet)", "rows not measured yet"
    if r and pcie_bytes(r)[0]:
        pin, pm = pcie_bytes(r)[0], mpwqe_pcie_in(r)
        mp = f"pending; formula on cx3-db@{xb}: {pm / pin:.2f} ({pin:.0f} -> {pm:.0f} B)"
        why = (f"pending; formula {off(pm / pin, 59.0 / 80.3)}: it saves "
               f"{pin - pm:.0f} B/pkt (64 B TXBB read -> 16 B pointer + a "
               f"share of the header), the published figures {s0 - s1:.0f} "
               "B; e.g. if mlx5's plain WQE inlines the 18 B L2 header, "
               "MPWQE reads it back as data (the patch does not say)")
    c5, c5m = pick(records, "cx5", 32), pick(records, "cx5-mpwqe", 32)
    if c5 and c5m and pcie_bytes(c5)[0] and pcie_bytes(c5m)[0]:
        p0, p1 = pcie_bytes(c5)[0], pcie_bytes(c5m)[0]
        mp = (p0, p1)
        why = (f"measured (host->device B/pkt with TLP overheads) "
               f"{off(p1 / p0, 59.0 / 80.3)}: it saves {p0 - p1:.0f} B/pkt "
               f"(a 64 B WQE read -> a 16 B pointer + a share of the "
               f"header), the published figures {s0 - s1:.0f} B; e.g. if "
               "mlx5's plain WQE inlines the 18 B L2 header, MPWQE reads it "
               "back as data (the patch does not say)")
    v.append(("MPWQE, PCIe inbound, Gen2 (B/pkt; cx5 -> cx5-mpwqe, burst 32)",
              "mpwqe", 80.3, 59.0, mp,
              f"published figures imply {s0:.0f} -> {s1:.0f} B/pkt", why))
    # The hypothesis above, measured: a plain WQE that carries the frame's
    # L2 headers inline (the cx4 row, minimum inline mode L2) before.
    c4 = pick(records, "cx4", 32)
    m4, why4 = "pending (row not measured yet)", "rows not measured yet"
    if c4 and c5m and pcie_bytes(c4)[0] and pcie_bytes(c5m)[0]:
        p4, p1 = pcie_bytes(c4)[0], pcie_bytes(c5m)[0]
        m4 = (p4, p1)
        why4 = (f"{off(p1 / p4, 59.0 / 80.3)}: it saves {p4 - p1:.0f} B/pkt, "
                f"the published figures {s0 - s1:.0f} B; whether the patch's "
                "plain WQEs carried inline headers it does not say")
    v.append(("MPWQE, PCIe inbound, Gen2 (B/pkt; cx4 -> cx5-mpwqe, burst 32: "
              "the plain WQE with 18 B inline)", "mpwqe", 80.3, 59.0, m4,
              f"published figures imply {s0:.0f} -> {s1:.0f} B/pkt", why4))
    f = lambda insn: 1000 / (insn / IPC / CLOCK_GHZ + DB_NS / 32)
    why = ("with the MPWQE patch's own instruction counts the formula gives "
           f"{f(329) / f(421):.2f} ({off(f(329) / f(421), 20.94 / 16.96)})")
    mm = pair("cx5", 32, "cx5-mpwqe", 32)
    v.append(("MPWQE, Mpps, burst 32 (cx5 -> cx5-mpwqe)", "mpwqe", 16.96, 20.94,
              mm or "pending (row not measured yet)",
              f"formula, published insn 421 -> 329: {f(329) / f(421):.2f}",
              why if mm else "pending; " + why))
    t0 = 1000 / 4.90
    t1 = t0 - DB_NS * (1 - 1 / NAPI_BUDGET)
    xp = xdp_pair(records, NAPI_BUDGET)
    why = (f"one doorbell per {NAPI_BUDGET} packets saves "
           f"{DB_NS * (1 - 1 / NAPI_BUDGET):.0f} ns/pkt of the published "
           f"{t0:.0f}: {t0 / t1:.2f} ({off(t0 / t1, 7.5 / 4.9)})")
    if xp:
        why = (f"measured at burst {NAPI_BUDGET}: XDP_TX adds "
               f"{xp[2]:.0f} / {xp[3]:.0f} insn/pkt to XDP_DROP, "
               f"{xp[4]:.4f} / {xp[5]:.4f} doorbells/pkt (per packet / per "
               f"poll), on the published XDP drop "
               f"({1000 / REF_XDP_DROP_MPPS:.0f} ns); the formula on the "
               f"published 204 ns: {why}")
    v.append(("XDP_TX doorbell per NAPI poll, 1 stream (xdp-tx-pp -> xdp-tx, "
              f"burst {NAPI_BUDGET})", "xdp", 4.90, 7.50,
              (xp[0], xp[1]) if xp else "pending (row not measured yet)",
              f"formula on the published 204 ns: {t0 / t1:.2f}",
              why if not xp else why))
    return v


def xdp_ns(insn, db_pkt):
    """Port 1's XDP_TX path on the reference host, ns per packet: the
    XDP series' own XDP drop time for receiving (REF_XDP_DROP_MPPS: packet
    and CQE arrive by DMA; their cache misses are not instructions), plus
    the instructions XDP_TX adds over XDP_DROP (measured: xdp-tx* minus
    xdp-drop) and its XDP send queue doorbells."""
    return 1000 / REF_XDP_DROP_MPPS + insn / IPC / CLOCK_GHZ + db_pkt * DB_NS


def xdp_pair(records, burst):
    """(Mpps per-packet doorbells, Mpps batched, added insn pp, batched,
    doorbells/pkt pp, batched) of the XDP_TX rows at @burst, or None."""
    a, b = pick(records, "xdp-tx-pp", burst), pick(records, "xdp-tx", burst)
    d = pick(records, "xdp-drop", burst)
    if not a or not b or not d:
        return None
    ia, ib = num(a, "xdp_cost_pkt"), num(b, "xdp_cost_pkt")
    idr = num(d, "xdp_cost_pkt")
    da, db = num(a, "xdp_db_pkt"), num(b, "xdp_db_pkt")
    if None in (ia, ib, idr, da, db):
        return None
    ia, ib = ia - idr, ib - idr
    return (1000 / xdp_ns(ia, da), 1000 / xdp_ns(ib, db), ia, ib, da, db)


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = os.path.join(argv[0], "bench.csv")
    if not os.path.exists(path):
        print(f"model: no {path}", file=sys.stderr)
        return 1
    with open(path, newline="") as f:
        records = list(csv.DictReader(f))
    print(model_section(records), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
