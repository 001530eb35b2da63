#ifndef BMVAULT_CYAML_SHIM_H
#define BMVAULT_CYAML_SHIM_H

/* libyaml (Debian libyaml-dev): a YAML 1.1 parser, read event by event. bmvault reads the
 * values of the properties it writes in a notes folder's front matter with it. */
#include <yaml.h>

#endif
