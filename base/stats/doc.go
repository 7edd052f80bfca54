// Package stats summarizes a figure measured over seeds: its mean, sample
// standard deviation and a 95% Student t interval on the mean, and the
// Welch t interval for the difference of two arms' means. A figure from
// one seed has no interval, and says so.
//
// The t quantiles are those of a table (t at 0.975 for 1..30, 40, 60 and
// 120 degrees of freedom, and the normal 1.959964 beyond), interpolated
// linearly in 1/df between entries, as statistical tables advise for the
// fractional degrees of freedom Welch's formula gives. Between entries the
// interpolated quantile errs wide (a wider interval, never a narrower one
// beyond the table's rounding of 0.0001): by under 0.06 from 2 degrees of
// freedom, under 0.004 from 4, and by up to 1.1 between 1 and 2, where
// only two or three seeds of very unequal spread land.
// The package is a leaf: the standard library only.
package stats
