"""The small graded collection of the hostile-input tests (levels 0 to 3, two topics); a
module of its own so that test files import it by a name no other folder uses."""

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d4 3\n2 0 d1 1\n2 0 d5 2\n"
RUN = (
    "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d4 3 1.5 r\n1 Q0 d9 4 1.0 r\n"
    "2 Q0 d5 1 1.0 r\n2 Q0 d1 2 0.5 r\n"
)
