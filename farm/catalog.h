/* catalog.h: what this build offers, listed from the registries themselves: the algorithms
 * and their parameters (core/algo.h), the scenario generators (core/scengen.h), the map
 * generators (plan.h's `generate` keys) and the reports (report.h). `mapfarm algorithms`,
 * `generators` and `reports` print these; docs/algorithms.md is the Markdown form, and a test
 * fails when the page and the registry differ. */
#ifndef FARM_CATALOG_H
#define FARM_CATALOG_H

#include <stdio.h>

/* Each algorithm: name, label, description, and one line per parameter with its type, range
 * (or choices) and default. */
void farm_catalog_algorithms(FILE *out);

/* The same as a Markdown page (docs/algorithms.md), its first line a comment saying how it
 * is made. */
void farm_catalog_algorithms_markdown(FILE *out);

/* The scenario generators and the map generators, each with its parameters. */
void farm_catalog_generators(FILE *out);

/* Each report name with its one-line description. */
void farm_catalog_reports(FILE *out);

#endif
