#!/usr/bin/env bash
# Builds the release binary and a Debian package of it: scripts/make-deb.sh OUT_DIR
# Prints the .deb's path. Depends lists exactly the packages holding the libraries the binary links
# (ldd) and the ones it opens on first use (the sonames written in it: FFmpeg, libcurl, Little CMS,
# libheif, libjxl, libwebpdemux), found with dpkg -S. Uses dpkg-deb only.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/make-deb.sh OUT_DIR}
mkdir -p "$out"
./scripts/install-deps.sh
# MEDIAPREP_BUILD_PATH: a build folder of its own (the test suite runs this while holding .build).
build=${MEDIAPREP_BUILD_PATH:-.build}
swift build --scratch-path "$build" -c release --static-swift-stdlib --disable-local-rpath --product mediaprep >&2
bin=$build/release/mediaprep
version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)

# Every shared object it needs: linked, and opened by name at run time.
linked=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
opened=$(strings -n 8 "$bin" | grep -E '^lib[A-Za-z0-9_+-]+\.so\.[0-9.]+$' | sort -u)
paths=$linked
for soname in $opened; do
  # No early exit in awk: ldconfig would be cut off mid-write (SIGPIPE under pipefail).
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s && !found {print $NF; found = 1}')
  [ -n "$path" ] || { echo "make-deb: $soname is not installed" >&2; exit 1; }
  paths+=$'\n'$path
done
depends=$(for p in $paths; do
  real=$(readlink -f "$p")
  dpkg -S "$p" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null || { echo "make-deb: no package owns $p" >&2; exit 1; }
done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"
install -D -m 0755 "$bin" "$root/usr/bin/mediaprep"
strip --strip-unneeded "$root/usr/bin/mediaprep"
"$bin" completions bash | install -D -m 0644 /dev/stdin "$root/usr/share/bash-completion/completions/mediaprep"
"$bin" completions zsh | install -D -m 0644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_mediaprep"
"$bin" completions fish | install -D -m 0644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/mediaprep.fish"
install -D -m 0644 README.md "$root/usr/share/doc/mediaprep/README.md"
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: mediaprep
Version: $version
Architecture: $arch
Maintainer: mediaprep maintainers <mediaprep@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: prepares chat attachments the way SimpleX Chat sends them
 Photos within 261,120 bytes, upright and without metadata; HEIC, AVIF, JPEG XL,
 animated WebP and APNG; videos and voice notes every client plays; previews,
 the XFTP chunk plan and the ComposedMessage JSON; check for CI (SARIF, GitHub).
CONTROL
deb="$out/mediaprep_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
