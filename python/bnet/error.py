"""The error raised when the bnet command exits with a non-zero status."""


class BnetError(Exception):
    """bnet exited with `status` (2: bad input; 1: internal; 3: faults made
    flows or rows fail; 130/143: interrupted; negative: killed by that
    signal). `message` is bnet's stderr, which names file, line and key.
    `result` is the JSON bnet still wrote (statuses 3, 130, 143), else None;
    `point` is the sweep point that failed, else None."""

    def __init__(self, status, message, argv=(), result=None):
        super().__init__(f"bnet exited with status {status}: {message}")
        self.status = status
        self.message = message
        self.argv = list(argv)
        self.result = result
        self.point = None
