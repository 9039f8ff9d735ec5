"""darktable-cli's input and its check (tests/apps/run.sh, docs/apps.md).

  darktable_check.py make DIR        writes DIR/in.pfm and DIR/edit.xmp
  darktable_check.py compare A B     PSNR and largest difference of two PFMs;
                                     exit 1 below the thresholds

The image: 256x192 RGB float, smooth ramps plus a sine pattern (edges for
sharpen, texture for soften), deterministic.  The edit: exposure (+0.7 EV),
sharpen and soften with their default strengths, as darktable 4.2 stores
them in an XMP sidecar (params: the modules' C structs, little-endian,
hex).  highpass is left out: its OpenCL and CPU versions blur differently
(37.8 dB against each other on Kiln), which would hide a driver's error.
"""
import math
import struct
import sys

# Kiln gives 56.7 dB and a largest difference of 0.031 (soften's blur
# rounds differently on the two paths); a module skipped or wrong gives
# under 30 dB (no edit at all: 11.9 dB).
MIN_PSNR_DB = 45.0
MAX_ABS = 0.1

W, H = 256, 192

# (operation, module version, params)
EDIT = [
    ("exposure", 6, struct.pack("<iffffi", 0, 0.0, 0.7, 50.0, -1.0, 0)),
    ("sharpen", 1, struct.pack("<fff", 2.0, 0.5, 0.5)),
    ("soften", 1, struct.pack("<ffff", 50.0, 100.0, 0.33, 50.0)),
]


def make(d):
    with open(d + "/in.pfm", "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (W, H))
        for y in range(H):
            row = bytearray()
            for x in range(W):
                b = 0.5 + 0.5 * math.sin(x * 0.1) * math.cos(y * 0.13)
                row += struct.pack("<fff", x / W, y / H, b)
            f.write(row)
    items = "\n".join(
        '     <rdf:li darktable:num="%d" darktable:operation="%s" darktable:enabled="1"'
        ' darktable:modversion="%d" darktable:params="%s" darktable:multi_name=""'
        ' darktable:multi_priority="0"/>' % (i, op, v, p.hex())
        for i, (op, v, p) in enumerate(EDIT))
    with open(d + "/edit.xmp", "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">\n'
                ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
                '  <rdf:Description rdf:about="" xmlns:darktable="http://darktable.sf.net/"\n'
                '   darktable:xmp_version="4" darktable:history_end="%d">\n'
                '   <darktable:history>\n    <rdf:Seq>\n%s\n    </rdf:Seq>\n'
                '   </darktable:history>\n  </rdf:Description>\n </rdf:RDF>\n</x:xmpmeta>\n'
                % (len(EDIT), items))


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        n = w * h * (3 if kind == b"PF" else 1)
        return struct.unpack(("<" if scale < 0 else ">") + "%df" % n, f.read(4 * n)), (w, h)


def compare(a_path, b_path):
    a, sa = read_pfm(a_path)
    b, sb = read_pfm(b_path)
    if sa != sb:
        print("sizes differ: %s vs %s" % (sa, sb))
        return 1
    if any(math.isnan(v) for v in b):
        print("NaN in %s" % b_path)
        return 1
    sq = sum((x - y) ** 2 for x, y in zip(a, b))
    worst = max(abs(x - y) for x, y in zip(a, b))
    mse = sq / len(a)
    psnr = float("inf") if mse == 0 else 10 * math.log10(1.0 / mse)
    good = psnr >= MIN_PSNR_DB and worst <= MAX_ABS
    print("%dx%d RGB: PSNR %.2f dB (>= %.0f), largest difference %.4f (<= %.2f)"
          % (sa[0], sa[1], psnr, MIN_PSNR_DB, worst, MAX_ABS))
    return 0 if good else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
