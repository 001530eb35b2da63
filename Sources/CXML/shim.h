#ifndef BMVAULT_CXML_SHIM_H
#define BMVAULT_CXML_SHIM_H

#include <libxml/parser.h>
#include <libxml/tree.h>

#endif
