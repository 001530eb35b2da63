#ifndef BMVAULT_CXML_SHIM_H
#define BMVAULT_CXML_SHIM_H

/* Debian builds libxml2 with ICU, so its encoding.h includes the system's ICU headers; in a
 * Swift module that also sees Foundation, whose own ICU defines the same types differently,
 * clang then refuses the two (`UErrorCode has different definitions`), depending on which
 * module it loads first. bmvault reads only element trees and never touches an encoding
 * handler (the only structure whose fields depend on it), so ICU is left out of the view. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>

#endif
