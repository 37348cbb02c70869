# Sourced by test.sh: lets a fresh clone reuse the workspace crates that the machine's build
# cache already holds, built from the same bytes.
#
# Cargo decides what to rebuild by comparing each source file's modification time with its
# outputs'. Every file of a fresh clone is new, so without this each CI run compiled every
# workspace crate again (the `tribunal` crate alone at opt-level 3 several times over), although
# the cache (~/.cache/tribunal/target) held them built from identical sources. The record lists
# the SHA-1 of every tracked file (and the commit, which `shared/build.rs` compiles in) that the
# cache's last complete build was made from.
#
# `build_record_stamp` runs before anything is built. In a fresh clone (TRIBUNAL_FRESH_CLONE=1,
# set by .ci/run: a tree no other build reads) every tracked file whose content equals the
# record's gets an old modification time (2000-01-01), so cargo keeps what it built from those
# bytes; every other tracked file gets the time of now, newer than any output in the cache, so
# whatever depends on it is rebuilt. The record then keeps only the unchanged files: a build
# that stops half-way cannot leave a record that vouches for outputs it replaced. In any other
# tree (a working copy, whose files other target directories also read) nothing is dated back
# and the record is dropped, since this run's build may replace outputs it describes.
# `build_record_write` writes the record once every build step has finished.
# Like the cache itself, the record assumes one test run at a time on a machine.

build_record=${build_record:?the record file}

build_record_stamp() {
  local current unchanged head
  if [ "${TRIBUNAL_FRESH_CLONE:-}" != 1 ]; then
    rm -f "$build_record"
    return 0
  fi
  current=$(mktemp)
  unchanged=$(mktemp)
  git ls-files -z | xargs -0 -r sha1sum >"$current"
  if [ -f "$build_record" ]; then
    grep -Fxf "$build_record" "$current" >"$unchanged" || true
  fi
  # sha1sum prints "HASH  PATH": the path starts at column 43.
  cut -c43- "$unchanged" | tr '\n' '\0' | xargs -0 -r touch -h -d '2000-01-01 00:00:00 UTC'
  grep -vFxf "$unchanged" "$current" | cut -c43- | tr '\n' '\0' | xargs -0 -r touch -h
  echo "build record: $(wc -l <"$unchanged") of $(wc -l <"$current") tracked files unchanged since the cache's last complete build"
  head=$(git rev-parse HEAD)
  if [ -f "$build_record" ] && grep -qFx "commit $head" "$build_record"; then
    # shared/build.rs reruns when these change; the same commit compiles to the same crate.
    find .git/HEAD .git/packed-refs .git/refs/heads -print0 2>/dev/null |
      xargs -0 -r touch -h -d '2000-01-01 00:00:00 UTC'
    echo "commit $head" >>"$unchanged"
  else
    find .git/HEAD .git/packed-refs .git/refs/heads -print0 2>/dev/null | xargs -0 -r touch -h
  fi
  mv "$unchanged" "$build_record"
  rm -f "$current"
}

build_record_write() {
  [ "${TRIBUNAL_FRESH_CLONE:-}" = 1 ] || return 0
  { git ls-files -z | xargs -0 -r sha1sum; echo "commit $(git rev-parse HEAD)"; } >"$build_record.new"
  mv "$build_record.new" "$build_record"
}
