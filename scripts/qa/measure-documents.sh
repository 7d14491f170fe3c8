#!/usr/bin/env bash
# #55's figures on the corpus of make-documents.py: for each output, markers found by exiftool, in its
# bytes, in its inflated PDF streams (qpdf --qdf) and in its zip or tar members (inflated); qpdf --check;
# pages rendered the same (pdftoppm); the same text before and after; the same members; beside mat2.
#   scripts/qa/measure-documents.sh IN_DIR OUT_DIR [MEDIAPREP]
set -uo pipefail
in=$1 out=$2 bin=${3:-.build/release/mediaprep}
markers='Jane Marker|Jane Q|Acme Secret|SN-4417|/home/jane|C:\\\\Users|Users\\\\jane|TestCam|2023-04-0|2023:04:0|20230405|janemarker|48 deg|Fixture'
rm -rf "$out" && mkdir -p "$out"
"$bin" prepare --out "$out" "$in"/* >/dev/null || echo "prepare exited $?"
scan() {  # everything a file says, inflated: exiftool, bytes, PDF streams, archive members
  local f=$1 t; t=$(mktemp -d)
  exiftool -a -G1 -ee "$f" 2>/dev/null
  strings -a "$f"
  case "$f" in
    *.pdf) qpdf --qdf --object-streams=disable "$f" "$t/q.pdf" 2>/dev/null; strings -a "$t/q.pdf"
           mkdir -p "$t/img"; pdfimages -all "$f" "$t/img/i" 2>/dev/null; for i in "$t"/img/*; do [ -f "$i" ] && exiftool -a -G1 "$i"; done ;;
    *.zip|*.docx|*.xlsx|*.pptx|*.odt|*.epub) (cd "$t" && unzip -qq -o "$f" 2>/dev/null; zipinfo -v "$f" 2>/dev/null)
           find "$t" -type f -exec sh -c 'strings -a "$1"; exiftool -a -G1 "$1" 2>/dev/null' _ {} \; ;;
    *.tar|*.tar.gz) (cd "$t" && tar -xf "$f" 2>/dev/null; tar --list -v --full-time -f "$f"; python3 -c "import tarfile,sys;[print(m.pax_headers) for m in tarfile.open(sys.argv[1])]" "$f"; gzip -l -N "$f" 2>/dev/null; gzip -dc "$f" 2>/dev/null | strings -a)
           find "$t" -type f -exec exiftool -a -G1 {} \; ;;
  esac
  rm -rf "$t"
}
text() {  # the text a reader sees
  case "$1" in
    *.pdf) pdftotext -q "$1" - ;;
    *.docx|*.xlsx|*.pptx|*.odt) local t; t=$(mktemp -d)  # through LibreOffice, as a reader would see it
      soffice --headless --convert-to pdf --outdir "$t" "$1" >/dev/null 2>&1; pdftotext -q "$t"/*.pdf -; rm -rf "$t" ;&
    *.epub) python3 - "$1" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in sorted(z.namelist()):
    if re.search(r'(document|sheet\d|slide\d|content|page\d)\.(xml|xhtml)$', n):
        # Who wrote a change or a note is no text a reader sees: LibreOffice above shows the text itself.
        x = re.sub(r'<dc:(creator|date)>.*?</dc:\1>', '', z.read(n).decode())
        print(n, re.sub(r'<[^>]+>', '', x))
PY
    ;;
    *.zip) unzip -Z1 "$1" ;;
    *.tar|*.tar.gz) tar -tf "$1" ;;
    *.html) sed 's/<[^>]*>//g' "$1" | tr -s ' \n' ;;
  esac
}
printf '%-16s %8s %8s %6s %6s %6s\n' file markers-in markers-out check pages text
for f in "$in"/*; do
  n=$(basename "$f"); o="$out/$n"
  before=$(scan "$f" | grep -Eoi "$markers" | sort -u | wc -l)
  after=$( [ -f "$o" ] && scan "$o" | grep -Eoi "$markers" | sort -u | tr '\n' ',' )
  m=$(mktemp -d); cp "$f" "$m/"; mat2 "$m/$n" >/dev/null 2>&1
  mo=$(ls "$m"/*.cleaned.* 2>/dev/null | head -1)
  mat=-; [ -n "$mo" ] && mat=$(scan "$mo" | grep -Eoi "$markers" | sort -u | tr '\n' ',')
  chk=-; pages=-
  if [[ $n == *.pdf ]]; then
    qpdf --check "$o" >/dev/null 2>&1 && chk=ok || chk=FAIL
    pdftoppm -r 50 -png "$f" "$m/a" && pdftoppm -r 50 -png "$o" "$m/b"
    pages=same; for a in "$m"/a*.png; do cmp -s "$a" "${a/\/a/\/b}" || pages=DIFF; done
  fi
  [ "$(text "$f" | tr -s '[:space:]' ' ')" == "$(text "$o" | tr -s '[:space:]' ' ')" ] && same=same || same=DIFF
  printf '%-16s %8s %8s %6s %6s %6s  out: %s  mat2: %s\n' "$n" "$before" "$(echo -n "$after" | tr -cd , | wc -c)" "$chk" "$pages" "$same" "$after" "$mat"
  rm -rf "$m"
done
