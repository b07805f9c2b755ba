#!/usr/bin/env python3
"""mbs-sim --animate / --gltf: the page and the glTF binary.

usage: test_anim.py MBS_SIM SOURCE_ROOT

* glTF: spatial_fourbar 2 s parsed back: GLB header and chunk lengths, one node per body
  (names of the model), translation + rotation channels per moving body sharing one time
  input that runs from 0 to t_end with as many samples as frames reported, unit
  quaternions, and the translation of body b2 equal (float32) to the slider point of the CSV
  (b2's origin) at every frame time.
* glTF springs: free_body_springs 1 s, spring 1 (world origin to the bar origin) as a node
  whose translation is the midpoint and whose z scale the length at every frame (CSV, 1e-6).
* Page: engine_v6 5 s at 60 fps under 5 MB and under 2 s of extra wall time; spatial_fourbar
  opened in headless Chromium at t = 0.25 s and 1.0 s: no JavaScript error, the player is
  ready, and the screenshots differ (more than 300 pixels) only inside the screen
  rectangles of the bodies the page reports (outside the control panel, whose readout
  changes); the page's self-test (#selftest) of the orbit camera, with three.js's
  OrbitControls and with the page's own: a drag moves the camera at a constant distance
  from the target, the wheel changes that distance.
Chromium: Debian chromium-headless-shell or chromium; installed by scripts/install-browser.sh
when missing. Without it the page part is skipped (exit 77) unless MBS_REQUIRE_BROWSER=1
(CI), which makes it a failure.
"""
import csv
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg)
    return cond


def run_sim(sim, args):
    """mbs-sim run ARGS; its stdout (fails the test on a bad exit status)."""
    p = subprocess.run([sim, "run"] + args + ["--no-progress"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("mbs-sim %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


# ----------------------------------------------------------------------------- glTF
def read_glb(path):
    """(json document, binary chunk) of a .glb, checking the container."""
    data = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    check(magic == 0x46546C67 and version == 2, "glb: bad magic/version")
    check(length == len(data), "glb: header length %d, file %d" % (length, len(data)))
    jlen, jtype = struct.unpack_from("<II", data, 12)
    check(jtype == 0x4E4F534A and jlen % 4 == 0, "glb: first chunk is not padded JSON")
    doc = json.loads(data[20:20 + jlen].decode("utf-8"))
    blen, btype = struct.unpack_from("<II", data, 20 + jlen)
    check(btype == 0x004E4942, "glb: second chunk is not BIN")
    binary = data[28 + jlen:28 + jlen + blen]
    check(len(binary) == blen and doc["buffers"][0]["byteLength"] <= blen, "glb: BIN length")
    return doc, binary


def accessor(doc, binary, i):
    """Values of accessor i as a list of tuples."""
    acc = doc["accessors"][i]
    view = doc["bufferViews"][acc["bufferView"]]
    n = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    fmt = "<%d%s" % (acc["count"] * n, "f" if acc["componentType"] == 5126 else "H")
    vals = struct.unpack_from(fmt, binary, view["byteOffset"])
    check(struct.calcsize(fmt) <= view["byteLength"], "accessor %d overruns its view" % i)
    return [vals[k * n:(k + 1) * n] for k in range(acc["count"])]


def test_gltf(sim, tmp):
    glb, csvp = os.path.join(tmp, "f.glb"), os.path.join(tmp, "f.csv")
    out = run_sim(sim, ["spatial_fourbar", "--t-end", "2", "--gltf", glb, "--out", csvp])
    nbody = int(re.search(r"(\d+) bod(?:y|ies)", out).group(1)) + 1
    nframe = int(re.search(r"gltf\s+\S+ \((\d+) frames", out).group(1))
    check(nframe == 121, "2 s at 60 fps: %d frames, expected 121" % nframe)
    doc, binary = read_glb(glb)
    names = [n.get("name") for n in doc["nodes"]]
    for b in ["world", "b1", "b2", "b3"]:
        check(names.count(b) == 1, "glb: body node %s appears %d times" % (b, names.count(b)))
    anim = doc["animations"][0]
    chans = anim["channels"]
    by_node = {}
    for c in chans:
        by_node.setdefault(c["target"]["node"], set()).add(c["target"]["path"])
    moving = [n for n, paths in by_node.items() if paths == {"translation", "rotation"}]
    check(len(moving) == nbody - 1, "glb: %d bodies with TRS channels, expected %d"
          % (len(moving), nbody - 1))
    check(len(chans) == 2 * (nbody - 1), "glb: %d channels, expected %d" % (len(chans), 2 * (nbody - 1)))
    moving_names = {names[n] for n in moving}
    check(None not in moving_names and len(moving_names) == nbody - 1 and "world" not in moving_names,
          "glb: moving nodes are not the named bodies: %s" % sorted(map(str, moving_names)))
    inputs = {anim["samplers"][c["sampler"]]["input"] for c in chans}
    check(len(inputs) == 1, "glb: channels do not share one time input")
    tacc = doc["accessors"][inputs.pop()]
    times = [t[0] for t in accessor(doc, binary, doc["accessors"].index(tacc))]
    check(tacc["count"] == nframe and tacc["min"] == [0] and abs(tacc["max"][0] - 2.0) < 1e-6,
          "glb: time input count %d min %s max %s" % (tacc["count"], tacc["min"], tacc["max"]))
    check(all(b > a for a, b in zip(times, times[1:])), "glb: times not increasing")
    rows = {round(float(r["t"]), 6): r for r in csv.DictReader(open(csvp))}
    b2 = names.index("b2")
    worst_q, worst_p = 0.0, 0.0
    for c in chans:
        if c["target"]["node"] != b2:
            continue
        vals = accessor(doc, binary, anim["samplers"][c["sampler"]]["output"])
        for t, v in zip(times, vals):
            if c["target"]["path"] == "rotation":
                worst_q = max(worst_q, abs(sum(x * x for x in v) - 1.0))
            else:
                r = rows[round(t, 6)]
                ref = [float(r["x.slider"]), float(r["y.slider"]), float(r["z.slider"])]
                worst_p = max(worst_p, max(abs(a - b) for a, b in zip(v, ref)))
    check(worst_q < 1e-6, "glb: quaternion norm off by %g" % worst_q)
    check(worst_p < 2e-7 * 4, "glb: b2 translation differs from the CSV by %g" % worst_p)
    print("glTF: %d nodes, %d channels, %d frames, b2 vs CSV %.2g, |q| %.2g"
          % (len(names), len(chans), nframe, worst_p, worst_q))


def test_gltf_springs(sim, tmp):
    """free_body_springs: spring 1 (world origin to the bar's origin) is a node whose
    translation is the midpoint and whose z scale is the length, at every frame."""
    glb, csvp = os.path.join(tmp, "s.glb"), os.path.join(tmp, "s.csv")
    run_sim(sim, ["free_body_springs", "--t-end", "1", "--gltf", glb, "--out", csvp])
    doc, binary = read_glb(glb)
    anim = doc["animations"][0]
    names = [n.get("name") for n in doc["nodes"]]
    check(names.count("line0") == 1 and names.count("line1") == 1, "glb: spring nodes missing")
    rows = {round(float(r["t"]), 6): r for r in csv.DictReader(open(csvp))}
    data = {}
    for c in anim["channels"]:
        if c["target"]["node"] == names.index("line0"):  # lines: the springs in element order
            smp = anim["samplers"][c["sampler"]]
            times = [t[0] for t in accessor(doc, binary, smp["input"])]
            data[c["target"]["path"]] = accessor(doc, binary, smp["output"])
    check(sorted(data) == ["rotation", "scale", "translation"], "glb: spring channels %s" % sorted(data))
    worst = 0.0
    for k, t in enumerate(times):
        r = rows[round(t, 6)]
        p = [float(r["q.free_bar." + a]) for a in "xyz"]
        mid = [0.5 * x for x in p]
        worst = max(worst, max(abs(a - b) for a, b in zip(data["translation"][k], mid)),
                    abs(data["scale"][k][2] - sum(x * x for x in p) ** 0.5))
    check(worst < 1e-6, "glb: spring 1 off its end points by %g" % worst)
    print("glTF springs: %d frames, spring 1 midpoint and length vs CSV %.2g" % (len(times), worst))


# ----------------------------------------------------------------------------- page
def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and lace == 0, "unsupported PNG"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]


def find_browser(root):
    for name in ("chromium-headless-shell", "chromium"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("MBS_NO_INSTALL") != "1":
        subprocess.run(["bash", os.path.join(root, "scripts", "install-browser.sh")],
                       stdout=subprocess.DEVNULL)
    for name in ("chromium-headless-shell", "chromium"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def browse(browser, url, mode, out=None):
    """Run headless Chromium on url: 'dom' returns the serialised DOM, 'shot' writes out."""
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader", "--window-size=800,600",
            "--force-device-scale-factor=1", "--hide-scrollbars", "--virtual-time-budget=4000",
            "--user-data-dir=" + os.path.join(os.path.dirname(url[7:]), "profile")]
    args += ["--dump-dom"] if mode == "dom" else ["--screenshot=" + out]
    p = subprocess.run(args + [url], capture_output=True, text=True, timeout=180)
    return p.stdout


def page_state(browser, page, t):
    """Attributes the player wrote on <html> at time t: boxes, panel, errors, state."""
    dom = browse(browser, "file://%s#t=%s" % (page, t), "dom")
    m = re.search(r"<html[^>]*>", dom)
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(0))) if m else {}
    unq = lambda s: s.replace("&quot;", '"').replace("&amp;", "&")
    return {k: unq(v) for k, v in attrs.items()}, dom


def test_page(sim, root, tmp):
    page = os.path.join(tmp, "e.html")
    t0 = time.time()
    run_sim(sim, ["engine_v6", "--t-end", "5"])
    t1 = time.time()
    out = run_sim(sim, ["engine_v6", "--t-end", "5", "--animate", page])
    t2 = time.time()
    size = os.path.getsize(page)
    extra = (t2 - t1) - (t1 - t0)
    print("engine_v6 5 s: page %.2f MB, extra wall time %.3f s" % (size / 1e6, extra))
    check(size < 5e6, "engine_v6 page is %.2f MB (budget 5 MB)" % (size / 1e6))
    check(extra < 2.0, "engine_v6 --animate took %.2f s extra (budget 2 s)" % extra)
    check("301 frames" in out, "engine_v6 5 s: expected 301 frames in '%s'" % out.strip()[-200:])
    text = open(page, encoding="utf-8").read()
    check(not re.search(r"(src|href)=\"(https?:)?//", text), "page loads something from the network")
    browser = find_browser(root)
    if not browser:
        msg = "no headless Chromium (Debian chromium-headless-shell) could be installed"
        if os.environ.get("MBS_REQUIRE_BROWSER") == "1":
            check(False, msg)
            return
        print("SKIP page rendering: " + msg)
        sys.exit(77 if not FAILS else 1)
    page = os.path.join(tmp, "f.html")
    run_sim(sim, ["spatial_fourbar", "--t-end", "2", "--animate", page])
    shots, boxes = [], []
    for t in (0.25, 1.0):
        attrs, dom = page_state(browser, page, t)
        check(attrs.get("data-state") == "ready", "page at t=%g not ready (%s)" % (t, dom[:300]))
        check("data-errors" not in attrs, "page raised: %s" % attrs.get("data-errors"))
        check(abs(float(attrs.get("data-time", "nan")) - t) < 1e-6, "page time %s, not %g"
              % (attrs.get("data-time"), t))
        check("energy" in dom and "residual" in dom, "readout lacks energy / residual")
        boxes += json.loads(attrs.get("data-boxes", "[]"))
        panel = json.loads(attrs.get("data-panel", "[0,0,0,0]"))
        shot = os.path.join(tmp, "shot%g.png" % t)
        browse(browser, "file://%s#t=%g" % (page, t), "shot", shot)
        shots.append(png_pixels(shot))
    for own in ("", "&orbit=own"):  # Debian's OrbitControls, and the page's own orbit
        attrs, dom = page_state(browser, page, "0.5&selftest" + own)
        check(attrs.get("data-selftest", "").startswith("ok"), "orbit camera self-test%s: %s"
              % (own, attrs.get("data-selftest")))
        check("data-errors" not in attrs, "page raised: %s" % attrs.get("data-errors"))
        print("orbit self-test: " + attrs.get("data-selftest", "missing"))
    (w, h, a), (_, _, b) = shots
    inside = lambda x, y, r, m=3: r[0] - m <= x <= r[2] + m and r[1] - m <= y <= r[3] + m
    changed = stray = 0
    for y in range(h):
        for x in range(w):
            if inside(x, y, panel, 0) or max(abs(p - q) for p, q in zip(a[y][x], b[y][x])) <= 24:
                continue
            changed += 1
            stray += not any(inside(x, y, r) for r in boxes)
    print("page: %d pixels changed between t = 0.25 and 1.0 s, %d outside the bodies" % (changed, stray))
    check(changed > 300, "screenshots barely differ (%d pixels)" % changed)
    check(stray <= changed // 200, "%d changed pixels outside the bodies' rectangles" % stray)


def main():
    sim, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        test_gltf(sim, tmp)
        test_gltf_springs(sim, tmp)
        test_page(sim, root, tmp)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
