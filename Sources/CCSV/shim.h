#ifndef BMVAULT_CCSV_SHIM_H
#define BMVAULT_CCSV_SHIM_H

/* libcsv (Debian libcsv-dev; no pkg-config file): RFC 4180 CSV, read field by field
 * through callbacks. */
#include <csv.h>

/* The option bits, macros Swift imports as Int32: one value, typed as csv_init takes it. */
static inline unsigned char bmvault_csv_strict_options(void) { return CSV_STRICT | CSV_STRICT_FINI; }

#endif
