#ifndef BMVAULT_CQPDF_SHIM_H
#define BMVAULT_CQPDF_SHIM_H

/* qpdf's C API (the library itself is C++): a PDF's trailer, document information dictionary
 * and XMP metadata stream, its objects read lazily. */
#include <qpdf/qpdf-c.h>

#endif
