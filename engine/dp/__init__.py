"""What the dynamic-programming solvers share: value types, work-group sizes and cost models
(``table``), reductions before a solve (``presolve``), variable fixing by reduced costs (``fixing``),
and the store of finished rows a trace-back reads (``rowstore``)."""
