"""Where grading runs: worker processes (`processes`), Ray (`ray`), Arrow batches (`arrow`)."""
