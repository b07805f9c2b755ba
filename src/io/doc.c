/* Model files read into a libxml2 document (io.h: io_read_doc), for the loader and the
 * tools alike: a regular file only, no network, no DTD, nothing printed. */
#define _POSIX_C_SOURCE 200809L
#include "io/io.h"
#include "io/regular.h"

#include <libxml/parser.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A <!DOCTYPE> stops the parse at once: URDF has no DTD, and an internal subset's entities
   would cost time (re-expanded at every read) and could reach outside the file. */
static void refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
    (void)name, (void)ext, (void)sys;
    xmlParserCtxtPtr p = ctx;
    *(int *)p->_private = p->input ? p->input->line : 1;
    xmlStopParser(p);
}

/* libxml2's messages go into ours (ctxt->lastError), never to stderr. */
static void quiet(void *user, xmlErrorPtr e)
{
    (void)user, (void)e;
}

/* The document of the open file fd, parsed without network, DTD or output; NULL with the
   message in err. */
static xmlDoc *parse_fd(const char *path, int fd, char *err, size_t len, int *st)
{
    xmlParserCtxtPtr p = xmlNewParserCtxt();
    if (!p) {
        snprintf(err, len, "%s: out of memory", path);
        *st = MBS_ERR_NOMEM;
        return NULL;
    }
    int doctype = 0;
    p->_private = &doctype;
    p->sax->internalSubset = refuse_doctype;
    p->sax->serror = quiet;
    /* COMPACT (short texts inside their nodes) and NOBLANKS (no white-space nodes, which
       nothing reads) take a quarter off parsing a 10^5-link file */
    xmlDoc *doc = xmlCtxtReadFd(p, fd, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                XML_PARSE_NOWARNING | XML_PARSE_COMPACT | XML_PARSE_NOBLANKS);
    if (doc && !doctype) {
        xmlFreeParserCtxt(p);
        return doc;
    }
    xmlFreeDoc(doc);
    const xmlError *e = xmlCtxtGetLastError(p);
    char msg[200] = "cannot be read";
    if (doctype) {
        snprintf(msg, sizeof msg, "a <!DOCTYPE> (a DTD, entity declarations) is not allowed in "
                 "a model file");
    } else if (e && e->message) {
        snprintf(msg, sizeof msg, "%s", e->message);
        msg[strcspn(msg, "\n")] = '\0';
    }
    snprintf(err, len, "%s:%d: not a model file: %s", path, doctype ? doctype : e ? e->line : 0,
             msg);
    *st = MBS_ERR_ARG;
    xmlFreeParserCtxt(p);
    return NULL;
}

xmlDoc *io_read_doc(const char *path, char *err, size_t len, int *status)
{
    xmlInitParser();
    char why[160];
    const int fd = mbs_open_regular(path, why, sizeof why);
    if (fd < 0) {
        snprintf(err, len, "%s: %s", path, why);
        *status = MBS_ERR_ARG;
        return NULL;
    }
    xmlDoc *doc = parse_fd(path, fd, err, len, status);
    close(fd);
    return doc;
}
