"""Several jobs planned together: shared stock, one free trial per provider across the jobs,
the search over job orders and the HiGHS MILP (:mod:`.milp`)."""
