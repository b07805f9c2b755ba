/* The resources folder of an FMU from fmi2Instantiate's fmuResourceLocation: a "file" URI as
 * RFC 3986 (Berners-Lee, Fielding, Masinter, "Uniform Resource Identifier (URI): Generic
 * Syntax", 2005) and FMI 2.0 section 2.1.3 define it, decoded to a local path. */
#ifndef MBS_FMU_URI_H
#define MBS_FMU_URI_H

#include <stddef.h>

/* The local path of uri into path (len bytes): file:///a/b, file://localhost/a/b and file:/a/b
   (scheme and host case-insensitive), percent-escapes decoded, a query or fragment dropped;
   a string without a scheme is taken as a plain path. 0, or -1 with a message in why (another
   scheme or host, a bad or NUL escape, a relative path, a path too long). */
int fmu_uri_path(const char *uri, char *path, size_t len, char *why, size_t why_len);

#endif
