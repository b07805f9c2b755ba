/* Decoding fmi2Instantiate's resource URI into a local path (fmu_uri.h). */
#include "fmu_uri.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int hex(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* The path part [s, end) percent-decoded into path; 0 or -1 with a message. */
static int decode(const char *s, const char *end, char *path, size_t len, char *why, size_t wl)
{
    size_t n = 0;
    for (; s < end; ++s) {
        int c = (unsigned char)*s;
        if (c == '%') {
            const int a = s + 1 < end ? hex((unsigned char)s[1]) : -1;
            const int b = s + 2 < end ? hex((unsigned char)s[2]) : -1;
            if (a < 0 || b < 0)
                return snprintf(why, wl, "resource URI: bad percent-escape at \"%.12s\"", s), -1;
            c = 16 * a + b;
            if (c == 0) return snprintf(why, wl, "resource URI: %%00 in the path"), -1;
            s += 2;
        }
        if (n + 1 >= len) return snprintf(why, wl, "resource URI: path longer than %zu bytes", len - 1), -1;
        path[n++] = (char)c;
    }
    path[n] = '\0';
    return 0;
}

int fmu_uri_path(const char *uri, char *path, size_t len, char *why, size_t why_len)
{
    const char *colon = strchr(uri, ':'), *slash = strchr(uri, '/');
    if (!colon || (slash && slash < colon)) {  /* no scheme: a plain path, taken as it is */
        if (strlen(uri) + 1 > len) return snprintf(why, why_len, "resource path too long"), -1;
        return snprintf(path, len, "%s", uri), 0;
    }
    if (colon - uri != 4 || strncasecmp(uri, "file", 4) != 0)
        return snprintf(why, why_len, "resource URI \"%.200s\": only file: URIs are supported", uri), -1;
    const char *p = colon + 1;
    if (p[0] == '/' && p[1] == '/') {  /* an authority: empty or localhost */
        const char *host = p + 2, *end = strchr(host, '/');
        const size_t hl = end ? (size_t)(end - host) : strlen(host);
        if (hl != 0 && !(hl == 9 && strncasecmp(host, "localhost", 9) == 0))
            return snprintf(why, why_len, "resource URI \"%.200s\": host \"%.*s\" is not this machine "
                            "(file:///path or file://localhost/path)", uri, (int)(hl > 100 ? 100 : hl), host), -1;
        p = host + hl;
    }
    if (*p != '/') return snprintf(why, why_len, "resource URI \"%.200s\": not an absolute path", uri), -1;
    return decode(p, p + strcspn(p, "?#"), path, len, why, why_len);
}
