"""Many problems in one call on one device: knapsacks packed into flat arrays with their answers
(``packed``) and the array-backed result users get from ``solve_many(..., arrays=True)``
(``arrays``)."""
