"""The application: commands that load a stream, decide with the domain and append in one
transaction; the lists and records read for people. Knows no HTTP."""
