#!/usr/bin/env bash
# The test suite under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer, then valgrind's
# leak check over `mediaprep prepare` on every fixture. Each in its own build folder.
# usage: scripts/qa/sanitize.sh [address|thread|valgrind]...   (default: all three)
set -uo pipefail
cd "$(dirname "$0")/../.."
./scripts/install-deps.sh
status=0
for what in "${@:-address thread valgrind}"; do
  for w in $what; do
    case $w in
      address)
        # LSan is on by default with ASan on Linux; every leak it reports fails the run.
        log=$PWD/.build-asan.log
        ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/scripts/qa/lsan.supp:print_suppressions=0 MEDIAPREP_SANITIZER=address \
          swift test --sanitize=address --scratch-path .build-asan >"$log" 2>&1 || status=1
        grep -E "^✘|ERROR: (Address|Leak)Sanitizer|SUMMARY: AddressSanitizer" "$log" | head -20
        grep -q "ERROR: .*Sanitizer" "$log" && status=1
        echo "address: $(grep -E "Test run with" "$log" | tail -1) (full log: $log)" ;;
      thread)
        # The batch engine, the runner and everything that runs on more than one thread.
        log=$PWD/.build-tsan.log
        MEDIAPREP_SANITIZER=thread swift test --sanitize=thread --scratch-path .build-tsan \
          --filter "EncodePipeline|FrameCache|VideoTranscode|FoundationFree|BatchRunner|PixelBudget|BatchPreparerAPI|TextMessage|BadInputMatrix|LinkPreview|Thumbnail|DecodeWhileResizing|StreamedPNG|ProgressiveSplit|Resize|PrepareImage|RateModel|SSIMReference|Flatten|JPEGMeasure" >"$log" 2>&1 || status=1
        grep -E "^✘|WARNING: ThreadSanitizer|SUMMARY: ThreadSanitizer" "$log" | head -20
        grep -q "WARNING: ThreadSanitizer" "$log" && status=1
        echo "thread: $(grep -E "Test run with" "$log" | tail -1) (full log: $log)" ;;
      valgrind)
        command -v valgrind >/dev/null || { apt-get install -y -qq valgrind >/dev/null; }
        swift build --scratch-path .build-valgrind >/dev/null
        out=$(mktemp -d)
        fixtures=$(ls testdata/* | grep -v -E 'make-fixtures|README|\.json$')
        # One process over every fixture (good and bad): FFmpeg, libjpeg, libpng, swscale paths.
        valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=3 -q --suppressions=scripts/qa/valgrind.supp \
          .build-valgrind/debug/mediaprep prepare $fixtures --out "$out" --jobs 1 -q >/dev/null
        rc=$?
        echo "valgrind: exit $rc over $(echo $fixtures | wc -w) fixtures (1: some fixtures are bad input, as meant; 3: memory errors or leaks)"
        [ $rc = 3 ] && status=1
        rm -rf "$out" ;;
    esac
  done
done
exit $status
