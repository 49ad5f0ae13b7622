#!/usr/bin/env bash
# What an app that depends on OpenCoreData resolves and builds (docs/design.md, "What an app
# builds"): two minimal apps in a temporary directory, one on `OpenCoreData` alone, one adding
# `OpenCoreDataPostgreSQL`, each resolved and built clean in debug from nothing, and the first
# again with the package's default trait (PostgreSQL) turned off, as an app on SQLite alone may.
# Prints, per app, the packages resolved and the wall-clock build time.
#
#   bash Benchmarks/Scripts/measure-app-builds.sh [path-to-the-package [app names…]]
set -euo pipefail
package=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

app() { # name, products (Swift list elements), imports, traits of the dependency
  mkdir -p "$work/$1/Sources/$1"
  cat > "$work/$1/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "$1",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "OpenCoreData", path: "$package"${4:-})],
    targets: [.executableTarget(name: "$1", dependencies: [$2])]
)
MANIFEST
  printf '%s\nlet model = NSManagedObjectModel()\nprint(model.entities.count)\n' "$3" > "$work/$1/Sources/$1/main.swift"
}
app SQLiteApp '.product(name: "OpenCoreData", package: "OpenCoreData")' 'import OpenCoreData'
app PostgreSQLApp '.product(name: "OpenCoreData", package: "OpenCoreData"), .product(name: "OpenCoreDataPostgreSQL", package: "OpenCoreData")' $'import OpenCoreData\nimport OpenCoreDataPostgreSQL'

app SQLiteAppWithoutTraits '.product(name: "OpenCoreData", package: "OpenCoreData")' 'import OpenCoreData' ', traits: []'

shift || true
for name in ${@:-SQLiteApp PostgreSQLApp SQLiteAppWithoutTraits}; do
  cd "$work/$name"
  swift package resolve >/dev/null 2>&1
  resolved=$(grep -o '"identity" : "[^"]*"' Package.resolved 2>/dev/null | sed 's/.*: "//; s/"$//' | sort | tr '\n' ' ')
  count=$(echo "$resolved" | wc -w)
  start=$(date +%s.%N)
  swift build > build.log 2>&1 || { cat build.log; exit 1; }
  end=$(date +%s.%N)
  modules=$(grep -c '^\[[0-9]*/[0-9]*\] Compiling' build.log || true)
  printf '%s: %d packages resolved (%s), clean debug build %.0f s, %d compile steps\n' \
    "$name" "$count" "${resolved% }" "$(echo "$end - $start" | bc)" "$modules"
done
