#!/usr/bin/env bash
# Installs the Debian 12 packages mediaprep builds against (idempotent; quick when present).
set -euo pipefail
pkgs=(pkg-config libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
      libavfilter-dev        # HDR to SDR (zscale, tonemap), opened on first use
      libcurl4-openssl-dev   # link previews (opened on first use)
      liblcms2-dev           # ICC colour profiles (opened on first use)
      libheif-dev            # HEIC/HEIF/AVIF (opened on first use)
      libjxl-dev             # JPEG XL (opened on first use)
      libwebp-dev            # WebP: stills through libwebp, animations through libwebpdemux (each opened on first use)
      libdeflate-dev         # inflating a PNG read whole (opened on first use)
      libtiff-dev            # TIFF and BigTIFF (opened on first use)
      libraw-dev             # DNGs of sensor data alone (opened on first use)
      libqpdf-dev qpdf       # PDFs: metadata out, one revision written (opened on first use); the CLI makes a test's encrypted PDF
      libzip-dev             # Office, OpenDocument, EPUB and ZIP packages (opened on first use)
      zsh fish               # the tests run the zsh and fish completion scripts in those shells
      python3-venv)          # contrib/dask's virtual environment (the Dask test starts a real cluster)
if dpkg-query -W -f='${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -qv "install ok installed" \
   || ! dpkg-query -W "${pkgs[@]}" >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
# Dask and distributed, pinned, in a virtual environment of the repository (contrib/dask/requirements.txt).
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv/dask"
req="$(dirname "$venv")/../contrib/dask/requirements.txt"
if ! "$venv/bin/python" -c "import dask, distributed; assert dask.__version__ == '2026.8.0' and distributed.__version__ == '2026.8.0'" 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
fi

