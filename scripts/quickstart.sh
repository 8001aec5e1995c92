#!/usr/bin/env bash
# Install what is needed, configure, build, and run the main job: the layout calculator on the
# seed's zipped_divide, then the seed's cute_layouts program.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
build/tools/layout/tessel-layout eval 'zipped_divide((256,128):(128,1), (16,16))'
if [ -x build/examples/cute_layouts ]; then
  build/examples/cute_layouts
fi
