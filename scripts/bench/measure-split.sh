#!/usr/bin/env bash
# What a budget search's measure (JPEGMeasure: libjpeg quantizes, our shim counts the Huffman
# symbols) spends where: the whole measure, the same with the count skipped (feeding the planes,
# forward DCT, quantizing), and the one-pass encode it stands in for. It bounds what a forward DCT
# done once per size could save: at most the second figure less the quantizing every trial keeps.
# Builds a small C program against the CJpeg shim (a copy whose counting can be switched off).
# Needs gcc and the -dev packages of scripts/install-deps.sh.
# usage: scripts/bench/measure-split.sh JPEG [SCALE_EIGHTHS]   (a 4:2:0 JPEG decoded at SCALE/8, default 4)
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$1 scale=${2:-4}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp Sources/CJpeg/*.h "$tmp/"
python3 - "$tmp" <<'EOF'
import sys
m = open(sys.argv[1] + "/measure.h").read()
anchor = "    if (g->headers < 0) g->headers = g->written + (long long)(sizeof(g->buf) - g->pub.free_in_buffer);\n"
assert anchor in m, "the shim's symbol count changed: update measure-split.sh"
open(sys.argv[1] + "/measure.h", "w").write(m.replace(anchor, anchor + "    if (cjpeg_skip_count) return TRUE;\n", 1))
s = open(sys.argv[1] + "/shim.h").read()
open(sys.argv[1] + "/shim.h", "w").write("static int cjpeg_skip_count;\n" + s)
EOF
cat > "$tmp/split.c" <<'EOF'
#include "shim.h"
#include <dlfcn.h>
#include <time.h>
/* The shim reaches libjpeg through mediaprep_libjpeg() (JPEGLibrary.swift in the package). */
const void *mediaprep_libjpeg(void) {
    static void *table[64];
    static int filled;
    if (!filled) {  /* libjpeg's own (libturbojpeg exports jpeg_ names of its own copy too) */
        void *lib = dlopen(cjpeg_libraries()[0], RTLD_NOW);
        const char *const *s = cjpeg_symbols();
        for (int i = 0; s[i]; i++) table[i] = dlsym(lib, s[i]);
        filled = 1;
    }
    return table;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)n);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    tjhandle h = tjInitDecompress();
    int w, ht, ss, cs;
    if (tjDecompressHeader3(h, d, (unsigned long)n, &w, &ht, &ss, &cs)) { fprintf(stderr, "%s\n", tjGetErrorStr()); return 1; }
    if (ss != TJSAMP_420) { fprintf(stderr, "%s: not 4:2:0 (the planes below are laid out for it)\n", argv[1]); return 1; }
    tjscalingfactor s = { atoi(argv[2]), 8 };
    int W = TJSCALED(w, s), H = TJSCALED(ht, s), st[3];
    unsigned char *p[3];
    for (int c = 0; c < 3; c++) { st[c] = tjPlaneWidth(c, W, TJSAMP_420); p[c] = malloc((size_t)st[c] * tjPlaneHeight(c, H, TJSAMP_420) + 64); }
    if (tjDecompressToYUVPlanes(h, d, (unsigned long)n, p, W, st, H, 0)) { fprintf(stderr, "%s\n", tjGetErrorStr()); return 1; }
    printf("%dx%d 4:2:0, ms per call (best of 3 rounds of 10)\n", W, H);
    const unsigned char *const *planes = (const unsigned char *const *)p;
    for (int q = 40; q <= 90; q += 25) {
        double best[3] = { 1e9, 1e9, 1e9 };
        cjpeg_tables t; long long lo = 0, da; char msg[200];
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < 3; k++) {
                double t0 = now();
                for (int r = 0; r < 10; r++) {
                    if (k < 2) { cjpeg_skip_count = k; cjpeg_measure_planes(planes, st, W, H, 0, 0, q, &t, k ? &da : &lo, &da, msg, 200); }
                    else { unsigned char *out = NULL; cjpeg_skip_count = 0; cjpeg_encode_planes(planes, st, W, H, 0, 0, q, 0, &t, &out, msg, 200); free(out); }
                }
                double ms = (now() - t0) / 10 * 1e3;
                if (ms < best[k]) best[k] = ms;
            }
        }
        printf("q%d: measure %.2f, without the symbol count %.2f, one-pass encode %.2f (%lld bytes)\n", q, best[0], best[1], best[2], lo);
    }
    return 0;
}
EOF
gcc -O2 -w -D_Nonnull= -D_Nullable= -o "$tmp/split" "$tmp/split.c" -I"$tmp" -lturbojpeg -lpthread -ldl
"$tmp/split" "$src" "$scale"
