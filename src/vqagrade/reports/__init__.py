"""What a run reports: the summary, gates, JUnit XML, the judge audit, the accuracy bench and
the HTML report (`html`, drawn by `score_page`, `audit_page` and `charts`)."""
