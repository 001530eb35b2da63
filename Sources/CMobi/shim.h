#ifndef BMVAULT_CMOBI_SHIM_H
#define BMVAULT_CMOBI_SHIM_H

/* libmobi: a Mobipocket or Kindle (KF8) book's headers and EXTH metadata. fmemopen(3) hands
 * it a file image built in memory. */
#include <stdio.h>
#include <mobi.h>

#endif
