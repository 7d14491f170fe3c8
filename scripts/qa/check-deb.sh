#!/usr/bin/env bash
# CI's packaging check, after the test suite (not inside it: its release build would starve the
# suite's timed network tests on a 2-core runner). Builds the .deb with scripts/make-deb.sh in its own
# build folder, then runs the package test (the version is the binary's; Depends own every library).
set -euo pipefail
cd "$(dirname "$0")/../.."
MEDIAPREP_DEB_TEST=1 swift test --filter DebianPackageTests
