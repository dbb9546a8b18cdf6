#!/bin/sh
# Renders docs/architecture.svg from docs/architecture.dot with Graphviz's
# dot (apt-get install graphviz), and records the source's SHA-256 in the
# picture, which TestArchitectureImage compares with the source.
set -eu
cd "$(dirname "$0")"
sum=$(sha256sum architecture.dot | cut -d' ' -f1)
dot -Tsvg architecture.dot | sed "1a <!-- rendered from architecture.dot sha256:$sum -->" > architecture.svg
