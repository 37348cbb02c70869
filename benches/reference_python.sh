# Sourced by the benchmark scripts from the repository root, with $venv set: makes the Python
# references' virtual environment from benches/requirements.txt (again when it changed) and
# defines `py`, which runs it without the OpenBLAS overrides some machines set (they slow numpy
# down; the references run without them).
if [ ! -x "$venv/bin/python" ] || ! cmp -s benches/requirements.txt "$venv/requirements.txt"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r benches/requirements.txt
  cp benches/requirements.txt "$venv/requirements.txt"
fi
py() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$@"; }
