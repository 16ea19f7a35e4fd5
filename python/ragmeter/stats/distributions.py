"""The distributions behind the p-values, in numpy alone (scipy is not a dependency): see
:mod:`ragmeter._distributions`, where they live so that modules below the statistics (the
figures) use them too without importing this package.
"""

from __future__ import annotations

from .._distributions import (
    f_quantile,
    f_sf,
    mean_t_interval,
    noncentral_f_sf,
    noncentral_t_sf,
    normal_cdf,
    normal_quantile,
    normal_tail,
    normal_two_sided,
    one_sided_from_two_sided,
    regularized_beta,
    student_t_quantile,
    student_t_tail,
    student_t_two_sided,
    studentized_range_quantile,
    studentized_range_sf,
    wilcoxon_distribution,
)

__all__ = [
    "f_quantile",
    "f_sf",
    "mean_t_interval",
    "noncentral_f_sf",
    "noncentral_t_sf",
    "normal_cdf",
    "normal_quantile",
    "normal_tail",
    "normal_two_sided",
    "one_sided_from_two_sided",
    "regularized_beta",
    "student_t_quantile",
    "student_t_tail",
    "student_t_two_sided",
    "studentized_range_quantile",
    "studentized_range_sf",
    "wilcoxon_distribution",
]
