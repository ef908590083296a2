"""Texts of the answers to a cause challenged: a GPU out-of-memory error's step, its batch and the
event the asker puts forward instead (`knowledge.answer_challenged`)."""

STEP_BATCH = (
    "The step that failed printed its batch just before the error: `{text}` ({ref}); the memory a step "
    "needs grows with the tokens in its batch."
)
BEFORE_ERROR = (
    "That line is rank {rank}'s `{text}` ({ref}), logged before its error; the error itself was raised "
    "{where} ({eref}), in another call."
)
