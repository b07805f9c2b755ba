/* modelDescription.xml against FMI 2.0's structure (fmi2_check.h). Written from the
 * standard's description of the schema (§2.2.1-2.2.8, §4.3.1); each function checks one
 * element and says why when it finds a problem. */
#include "fmi2_check.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attribute types of the schema (XML Schema Part 2 names). */
typedef enum { T_STR, T_NSTR, T_BOOL, T_UINT, T_INT, T_DOUBLE, T_ENUM, T_UINTS, T_DATETIME } atype;

typedef struct attr_spec {
    const char *name;
    atype type;
    int required;
    const char *values; /* T_ENUM: "|a|b|c|" */
} attr_spec;

typedef struct child_spec {
    const char *name;
    int min, max; /* max 0: unbounded */
} child_spec;

/* What ModelStructure needs to know of a variable. */
typedef struct var_info {
    char causality[24], variability[16], initial[16], type[16];
} var_info;

typedef struct ctx {
    char *err;
    size_t n;
    int structured, nvar;
    var_info *vars;
} ctx;

/* "line L: <element>: message" into the error; returns -1. */
static int bad(ctx *c, const xmlNode *n, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->n, "line %ld: <%s>: %s", n ? xmlGetLineNo(n) : 0L,
             n ? (const char *)n->name : "?", msg);
    return -1;
}

/* Attribute value (static buffer per slot) or NULL. */
static const char *get(const xmlNode *n, const char *name, int slot)
{
    static char buf[4][2048];
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) return NULL;
    snprintf(buf[slot], sizeof buf[slot], "%s", (const char *)v);
    xmlFree(v);
    return buf[slot];
}

static int is_uint(const char *s)
{
    if (!*s || strlen(s) > 10) return 0;
    for (const char *p = s; *p; ++p)
        if (*p < '0' || *p > '9') return 0;
    return strtoull(s, NULL, 10) <= 4294967295ULL;
}

/* One value of a type; 1 when valid. */
static int valid_value(atype t, const char *v, const char *values)
{
    char *end, key[80];
    switch (t) {
    case T_NSTR: return strpbrk(v, "\t\r\n") == NULL;
    case T_BOOL: return !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "1") || !strcmp(v, "0");
    case T_UINT: return is_uint(v);
    case T_INT: strtol(v, &end, 10); return *v && !*end && *v != ' ';
    case T_DOUBLE: strtod(v, &end); return *v && !*end && *v != ' ';
    case T_ENUM: snprintf(key, sizeof key, "|%s|", v); return *v && strstr(values, key) != NULL;
    case T_UINTS: {
        char copy[2048];
        snprintf(copy, sizeof copy, "%s", v);
        for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
            if (!is_uint(tok)) return 0;
        return 1;
    }
    case T_DATETIME: return strlen(v) >= 19 && v[4] == '-' && v[7] == '-' && v[10] == 'T';
    default: return 1;
    }
}

/* Every attribute of n is in spec with a valid value; the required ones are there. */
static int attributes(ctx *c, const xmlNode *n, const attr_spec *spec)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        const attr_spec *s = spec;
        while (s->name && strcmp(s->name, (const char *)a->name)) ++s;
        if (!s->name) return bad(c, n, "attribute %s is not in the schema", (const char *)a->name);
        const char *v = get(n, s->name, 0);
        if (!valid_value(s->type, v, s->values))
            return bad(c, n, "%s=\"%s\" is not a valid value", s->name, v);
    }
    for (const attr_spec *s = spec; s->name; ++s)
        if (s->required && !get(n, s->name, 0)) return bad(c, n, "required attribute %s is missing", s->name);
    return 0;
}

/* The element children of n follow spec in order with their counts; text only white
   space. first[k] receives the first child matching spec[k]. */
static int sequence(ctx *c, const xmlNode *n, const child_spec *spec, const xmlNode **first)
{
    int k = 0, count = 0, nspec = 0;
    while (spec[nspec].name) first[nspec++] = NULL;
    for (const xmlNode *ch = n->children; ch; ch = ch->next) {
        if (ch->type == XML_TEXT_NODE) {
            xmlChar *t = xmlNodeGetContent(ch);
            const int blank = strspn((const char *)t, " \t\r\n") == strlen((const char *)t);
            xmlFree(t);
            if (!blank) return bad(c, n, "text content is not allowed");
            continue;
        }
        if (ch->type != XML_ELEMENT_NODE) continue;
        for (int e = 0; e < k; ++e)
            if (!strcmp(spec[e].name, (const char *)ch->name))
                return bad(c, n, "<%s> is out of the schema's order (it comes before <%s>)", spec[e].name, spec[k].name);
        while (k < nspec && strcmp(spec[k].name, (const char *)ch->name)) {
            if (count < spec[k].min) return bad(c, n, "<%s> is missing before <%s>", spec[k].name, (const char *)ch->name);
            ++k, count = 0;
        }
        if (k == nspec) return bad(c, n, "<%s> is not allowed here (schema order)", (const char *)ch->name);
        if (!first[k]) first[k] = ch;
        if (++count > spec[k].max && spec[k].max > 0) return bad(c, n, "more than %d <%s>", spec[k].max, spec[k].name);
    }
    for (; k < nspec; ++k, count = 0)
        if (count < spec[k].min) return bad(c, n, "<%s> is missing", spec[k].name);
    return 0;
}

/* Every element child of n is called name and has attributes spec (and no children). */
static int leaf_list(ctx *c, const xmlNode *n, const char *name, const attr_spec *spec)
{
    const child_spec seq[] = {{name, 1, 0}, {NULL, 0, 0}};
    const xmlNode *first[2];
    if (sequence(c, n, seq, first) < 0) return -1;
    const child_spec none[] = {{NULL, 0, 0}};
    for (const xmlNode *ch = first[0]; ch; ch = ch->next)
        if (ch->type == XML_ELEMENT_NODE && (attributes(c, ch, spec) < 0 || sequence(c, ch, none, first) < 0))
            return -1;
    return 0;
}

static const char BOOL_FLAGS_CS[][40] = {
    "needsExecutionTool", "canHandleVariableCommunicationStepSize", "canInterpolateInputs",
    "canRunAsynchronuously", "canBeInstantiatedOnlyOncePerProcess",
    "canNotUseMemoryManagementFunctions", "canGetAndSetFMUstate", "canSerializeFMUstate",
    "providesDirectionalDerivative"};

/* <CoSimulation>: modelIdentifier a C identifier, the capability flags, <SourceFiles>. */
static int co_simulation(ctx *c, const xmlNode *n)
{
    attr_spec spec[13] = {{"modelIdentifier", T_NSTR, 1, NULL}, {"maxOutputDerivativeOrder", T_UINT, 0, NULL}};
    for (int k = 0; k < 9; ++k) spec[2 + k] = (attr_spec){BOOL_FLAGS_CS[k], T_BOOL, 0, NULL};
    spec[11] = (attr_spec){NULL, T_STR, 0, NULL};
    if (attributes(c, n, spec) < 0) return -1;
    const char *id = get(n, "modelIdentifier", 1);
    if (!(id[0] == '_' || (id[0] | 32) >= 'a') || strspn(id, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != strlen(id) ||
        (id[0] >= '0' && id[0] <= '9'))
        return bad(c, n, "modelIdentifier \"%s\" is not a C identifier", id);
    const child_spec seq[] = {{"SourceFiles", 0, 1}, {NULL, 0, 0}};
    const xmlNode *first[2];
    return sequence(c, n, seq, first);
}

/* <LogCategories>: <Category name description>, names unique. */
static int log_categories(ctx *c, const xmlNode *n)
{
    const attr_spec spec[] = {{"name", T_NSTR, 1, NULL}, {"description", T_STR, 0, NULL}, {NULL, T_STR, 0, NULL}};
    if (leaf_list(c, n, "Category", spec) < 0) return -1;
    for (const xmlNode *a = n->children; a; a = a->next)
        for (const xmlNode *b = a->next; b && a->type == XML_ELEMENT_NODE; b = b->next)
            if (b->type == XML_ELEMENT_NODE && !strcmp(get(a, "name", 1), get(b, "name", 2)))
                return bad(c, b, "category %s is listed twice", get(b, "name", 2));
    return 0;
}

/* <DefaultExperiment startTime stopTime tolerance stepSize/>. */
static int default_experiment(ctx *c, const xmlNode *n)
{
    const attr_spec spec[] = {{"startTime", T_DOUBLE, 0, NULL}, {"stopTime", T_DOUBLE, 0, NULL},
                              {"tolerance", T_DOUBLE, 0, NULL}, {"stepSize", T_DOUBLE, 0, NULL},
                              {NULL, T_STR, 0, NULL}};
    const child_spec none[] = {{NULL, 0, 0}};
    const xmlNode *first[1];
    return attributes(c, n, spec) < 0 ? -1 : sequence(c, n, none, first);
}

/* ---------------------------------------------------------------- ModelVariables */

/* 1 for a letter or '_' (nondigit), a digit, a Q-char (§2.2.9). */
static int nondigit(char ch) { return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int digit(char ch) { return ch >= '0' && ch <= '9'; }
static int qchar(char ch) { return nondigit(ch) || digit(ch) || (ch && strchr("!#$%&()*+,-./:;<>=?@[]^{}|~ ", ch)); }

/* B-name: nondigit {digit | nondigit} | Q-name; advances *s, 1 when one was read. */
static int b_name(const char **s)
{
    const char *p = *s;
    if (*p == '\'') {
        int chars = 0;
        for (++p; *p && *p != '\''; ++chars) {
            if (*p == '\\') {
                if (!p[1] || !strchr("'\"?\\abfnrtv", p[1])) return 0;
                p += 2;
            } else if (qchar(*p)) {
                ++p;
            } else {
                return 0;
            }
        }
        if (*p != '\'' || chars == 0) return 0;
        *s = p + 1;
        return 1;
    }
    if (!nondigit(*p)) return 0;
    while (nondigit(*p) || digit(*p)) ++p;
    *s = p;
    return 1;
}

/* identifier: B-name [arrayIndices] {"." B-name [arrayIndices]}. */
static int identifier(const char **s)
{
    do {
        if (!b_name(s)) return 0;
        if (**s == '[') {
            do {
                ++*s;
                if (!digit(**s)) return 0;
                while (digit(**s)) ++*s;
            } while (**s == ',');
            if (*(*s)++ != ']') return 0;
        }
    } while (**s == '.' && ++*s);
    return 1;
}

int fmi2_structured_name(const char *name)
{
    const char *s = name;
    if (!strncmp(s, "der(", 4)) {
        s += 4;
        if (!identifier(&s)) return 0;
        if (*s == ',') {
            ++s;
            if (!digit(*s)) return 0;
            while (digit(*s)) ++s;
        }
        return *s++ == ')' && !*s;
    }
    return identifier(&s) && !*s;
}

/* The initial a variable has when the attribute is left out (§2.2.7 table), "" for none. */
static const char *default_initial(const char *causality, const char *variability)
{
    if (!strcmp(causality, "input") || !strcmp(causality, "independent")) return "";
    if (!strcmp(variability, "constant") || !strcmp(causality, "parameter")) return "exact";
    return "calculated";
}

/* Causality with variability (§2.2.7: the combinations the standard allows), and initial. */
static int combination(ctx *c, const xmlNode *n, const var_info *v, const char *initial_attr)
{
    static const char *const allowed[] = {
        "parameter:fixed", "parameter:tunable", "calculatedParameter:fixed",
        "calculatedParameter:tunable", "input:discrete", "input:continuous", "output:constant",
        "output:discrete", "output:continuous", "local:constant", "local:fixed", "local:tunable",
        "local:discrete", "local:continuous", "independent:continuous"};
    char key[48];
    int ok = 0;
    snprintf(key, sizeof key, "%s:%s", v->causality, v->variability);
    for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; ++k) ok |= !strcmp(key, allowed[k]);
    if (!ok) return bad(c, n, "causality %s with variability %s is not allowed", v->causality, v->variability);
    if (!strcmp(v->variability, "continuous") && strcmp(v->type, "Real"))
        return bad(c, n, "only Real variables can be continuous");
    if (!initial_attr) return 0;
    const char *def = default_initial(v->causality, v->variability);
    if (!*def) return bad(c, n, "initial is not allowed with causality %s", v->causality);
    if (!strcmp(def, "exact") && strcmp(initial_attr, "exact"))
        return bad(c, n, "initial=\"%s\": only exact with causality %s, variability %s", initial_attr, v->causality, v->variability);
    if (!strcmp(v->causality, "calculatedParameter") || (!strcmp(v->causality, "local") && strcmp(v->variability, "discrete") && strcmp(v->variability, "continuous")))
        if (!strcmp(initial_attr, "exact")) return bad(c, n, "initial=\"exact\" is not allowed here");
    return 0;
}

/* The type element (Real, Integer, Boolean, String, Enumeration) and its start value. */
static int type_element(ctx *c, const xmlNode *sv, const xmlNode *t, var_info *v)
{
    const attr_spec real[] = {{"declaredType", T_NSTR, 0, NULL}, {"quantity", T_NSTR, 0, NULL}, {"unit", T_NSTR, 0, NULL},
        {"displayUnit", T_NSTR, 0, NULL}, {"relativeQuantity", T_BOOL, 0, NULL}, {"min", T_DOUBLE, 0, NULL},
        {"max", T_DOUBLE, 0, NULL}, {"nominal", T_DOUBLE, 0, NULL}, {"unbounded", T_BOOL, 0, NULL},
        {"start", T_DOUBLE, 0, NULL}, {"derivative", T_UINT, 0, NULL}, {"reinit", T_BOOL, 0, NULL}, {NULL, T_STR, 0, NULL}};
    const attr_spec integer[] = {{"declaredType", T_NSTR, 0, NULL}, {"quantity", T_NSTR, 0, NULL}, {"min", T_INT, 0, NULL},
        {"max", T_INT, 0, NULL}, {"start", T_INT, 0, NULL}, {NULL, T_STR, 0, NULL}};
    const attr_spec boolean[] = {{"declaredType", T_NSTR, 0, NULL}, {"start", T_BOOL, 0, NULL}, {NULL, T_STR, 0, NULL}};
    const attr_spec string[] = {{"declaredType", T_NSTR, 0, NULL}, {"start", T_STR, 0, NULL}, {NULL, T_STR, 0, NULL}};
    const attr_spec enumeration[] = {{"declaredType", T_NSTR, 1, NULL}, {"quantity", T_NSTR, 0, NULL}, {"min", T_INT, 0, NULL},
        {"max", T_INT, 0, NULL}, {"start", T_INT, 0, NULL}, {NULL, T_STR, 0, NULL}};
    const char *const names[] = {"Real", "Integer", "Boolean", "String", "Enumeration"};
    const attr_spec *const specs[] = {real, integer, boolean, string, enumeration};
    int k = 0;
    while (k < 5 && strcmp((const char *)t->name, names[k])) ++k;
    if (k == 5) return bad(c, sv, "<%s> is not a variable type", (const char *)t->name);
    snprintf(v->type, sizeof v->type, "%s", names[k]);
    const child_spec none[] = {{NULL, 0, 0}};
    const xmlNode *first[1];
    return attributes(c, t, specs[k]) < 0 ? -1 : sequence(c, t, none, first);
}

/* Start value required (input, parameter, initial exact or approx) or forbidden (initial
   calculated, independent). */
static int start_rule(ctx *c, const xmlNode *sv, const xmlNode *t, const var_info *v)
{
    const int has = get(t, "start", 1) != NULL;
    const int need = !strcmp(v->causality, "input") || !strcmp(v->causality, "parameter") ||
                     !strcmp(v->initial, "exact") || !strcmp(v->initial, "approx");
    const int banned = !strcmp(v->initial, "calculated") || !strcmp(v->causality, "independent");
    if (need && !has) return bad(c, sv, "%s needs a start value", get(sv, "name", 2));
    if (banned && has) return bad(c, sv, "%s must not have a start value", get(sv, "name", 2));
    return 0;
}

/* One <ScalarVariable>: attributes, one type element and an optional <Annotations>. */
static int scalar_variable(ctx *c, const xmlNode *sv, var_info *v)
{
    const attr_spec spec[] = {{"name", T_NSTR, 1, NULL}, {"valueReference", T_UINT, 1, NULL},
        {"description", T_STR, 0, NULL},
        {"causality", T_ENUM, 0, "|parameter|calculatedParameter|input|output|local|independent|"},
        {"variability", T_ENUM, 0, "|constant|fixed|tunable|discrete|continuous|"},
        {"initial", T_ENUM, 0, "|exact|approx|calculated|"},
        {"canHandleMultipleSetPerTimeInstant", T_BOOL, 0, NULL}, {NULL, T_STR, 0, NULL}};
    if (attributes(c, sv, spec) < 0) return -1;
    const char *cz = get(sv, "causality", 1), *va = get(sv, "variability", 2), *in = get(sv, "initial", 3);
    snprintf(v->causality, sizeof v->causality, "%.23s", cz ? cz : "local");
    snprintf(v->variability, sizeof v->variability, "%.15s", va ? va : "continuous");
    snprintf(v->initial, sizeof v->initial, "%.15s", in ? in : default_initial(v->causality, v->variability));
    const xmlNode *t = NULL, *extra = NULL;
    for (const xmlNode *ch = sv->children; ch; ch = ch->next)
        if (ch->type == XML_ELEMENT_NODE) {
            if (!t) t = ch;
            else if (!extra && !strcmp((const char *)ch->name, "Annotations")) extra = ch;
            else return bad(c, sv, "<%s> is not allowed here", (const char *)ch->name);
        }
    if (!t) return bad(c, sv, "no type element (Real, Integer, Boolean, String, Enumeration)");
    if (type_element(c, sv, t, v) < 0 || combination(c, sv, v, in) < 0 || start_rule(c, sv, t, v) < 0) return -1;
    if (c->structured && !fmi2_structured_name(get(sv, "name", 1)))
        return bad(c, sv, "name \"%s\" breaks the structured naming convention", get(sv, "name", 1));
    return 0;
}

/* <ModelVariables>: every variable, names unique, value references unique per type. */
static int model_variables(ctx *c, const xmlNode *n)
{
    const child_spec seq[] = {{"ScalarVariable", 1, 0}, {NULL, 0, 0}};
    const xmlNode *first[2];
    if (sequence(c, n, seq, first) < 0) return -1;
    for (const xmlNode *sv = first[0]; sv; sv = sv->next) c->nvar += sv->type == XML_ELEMENT_NODE;
    c->vars = calloc((size_t)c->nvar, sizeof *c->vars);
    const xmlNode **node = calloc((size_t)c->nvar, sizeof *node);
    if (!c->vars || !node) return free(node), bad(c, n, "out of memory");
    int i = 0, st = 0;
    for (const xmlNode *sv = first[0]; sv; sv = sv->next)
        if (sv->type == XML_ELEMENT_NODE) node[i++] = sv;
    for (i = 0; i < c->nvar && st == 0; ++i) {
        st = scalar_variable(c, node[i], &c->vars[i]);
        for (int k = 0; k < i && st == 0; ++k) {
            if (!strcmp(get(node[k], "name", 1), get(node[i], "name", 2)))
                st = bad(c, node[i], "name %s is used twice", get(node[i], "name", 2));
            else if (!strcmp(get(node[k], "valueReference", 1), get(node[i], "valueReference", 2)) &&
                     !strcmp(c->vars[k].type, c->vars[i].type))
                st = bad(c, node[i], "value reference %s of %s is used twice",
                         get(node[i], "valueReference", 2), c->vars[i].type);
        }
    }
    free(node);
    return st;
}

/* ---------------------------------------------------------------- ModelStructure */

typedef int (*var_pred)(const var_info *v);
static int is_output(const var_info *v) { return !strcmp(v->causality, "output"); }
static int is_initial_unknown(const var_info *v)
{
    return (is_output(v) && (!strcmp(v->initial, "approx") || !strcmp(v->initial, "calculated"))) ||
           !strcmp(v->causality, "calculatedParameter");
}
static int is_known_at_points(const var_info *v) { return !strcmp(v->causality, "input") || !strcmp(v->causality, "independent"); }
static int is_known_initially(const var_info *v) { return is_known_at_points(v) || !strcmp(v->initial, "exact"); }

/* dependencies: ascending indices of knowns; dependenciesKind of the same length. */
static int dependencies(ctx *c, const xmlNode *u, var_pred known)
{
    const char *deps = get(u, "dependencies", 1), *kinds = get(u, "dependenciesKind", 2);
    if (kinds && !deps) return bad(c, u, "dependenciesKind without dependencies");
    int nd = 0, nk = 0;
    long last = 0;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", deps ? deps : "");
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "), ++nd) {
        const long d = strtol(tok, NULL, 10);
        if (d < 1 || d > c->nvar || d <= last) return bad(c, u, "dependency %ld is not an ascending variable index", d);
        if (!known(&c->vars[d - 1])) return bad(c, u, "dependency %ld is not a known of this list", d);
        last = d;
    }
    snprintf(copy, sizeof copy, "%s", kinds ? kinds : "");
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "), ++nk)
        if (!valid_value(T_ENUM, tok, "|dependent|constant|fixed|tunable|discrete|"))
            return bad(c, u, "dependenciesKind %s is not a kind", tok);
    if (kinds && nk != nd) return bad(c, u, "dependenciesKind has %d entries for %d dependencies", nk, nd);
    return 0;
}

/* A list of <Unknown index dependencies dependenciesKind/>: exactly the variables member()
   selects, in ascending index order; list NULL means an empty list. */
static int unknowns(ctx *c, const xmlNode *list, const char *what, var_pred member, var_pred known)
{
    const attr_spec spec[] = {{"index", T_UINT, 1, NULL}, {"dependencies", T_UINTS, 0, NULL},
                              {"dependenciesKind", T_STR, 0, NULL}, {NULL, T_STR, 0, NULL}};
    int next = 0; /* variables before next are accounted for */
    if (list && leaf_list(c, list, "Unknown", spec) < 0) return -1;
    for (const xmlNode *u = list ? list->children : NULL; u; u = u->next) {
        if (u->type != XML_ELEMENT_NODE) continue;
        const long i = strtol(get(u, "index", 1), NULL, 10);
        if (i < 1 || i > c->nvar || i <= next) return bad(c, u, "index %ld is not an ascending variable index", i);
        for (int k = next; k < i - 1; ++k)
            if (member(&c->vars[k])) return bad(c, u, "variable %d belongs in <%s> but is missing", k + 1, what);
        if (!member(&c->vars[i - 1])) return bad(c, u, "variable %ld does not belong in <%s>", i, what);
        if (dependencies(c, u, known) < 0) return -1;
        next = (int)i;
    }
    for (int k = next; k < c->nvar; ++k)
        if (member(&c->vars[k])) return bad(c, list, "variable %d belongs in <%s> but is missing", k + 1, what);
    return 0;
}

/* <ModelStructure>: Outputs, Derivatives, InitialUnknowns. */
static int model_structure(ctx *c, const xmlNode *n)
{
    const child_spec seq[] = {{"Outputs", 0, 1}, {"Derivatives", 0, 1}, {"InitialUnknowns", 0, 1}, {NULL, 0, 0}};
    const xmlNode *first[4];
    if (sequence(c, n, seq, first) < 0) return -1;
    if (first[1]) return bad(c, first[1], "not checked here (the FMU exposes no derivatives)");
    if (unknowns(c, first[0], "Outputs", is_output, is_known_at_points) < 0) return -1;
    return unknowns(c, first[2], "InitialUnknowns", is_initial_unknown, is_known_initially);
}

/* The root element: attributes, children in schema order, each child checked. */
static int root(ctx *c, const xmlNode *n)
{
    const attr_spec spec[] = {
        {"fmiVersion", T_ENUM, 1, "|2.0|"}, {"modelName", T_STR, 1, NULL}, {"guid", T_NSTR, 1, NULL},
        {"description", T_STR, 0, NULL}, {"author", T_STR, 0, NULL}, {"version", T_NSTR, 0, NULL},
        {"copyright", T_STR, 0, NULL}, {"license", T_STR, 0, NULL}, {"generationTool", T_NSTR, 0, NULL},
        {"generationDateAndTime", T_DATETIME, 0, NULL},
        {"variableNamingConvention", T_ENUM, 0, "|flat|structured|"},
        {"numberOfEventIndicators", T_UINT, 0, NULL}, {NULL, T_STR, 0, NULL}};
    if (strcmp((const char *)n->name, "fmiModelDescription") || n->ns) return bad(c, n, "root is not <fmiModelDescription>");
    if (attributes(c, n, spec) < 0) return -1;
    const char *conv = get(n, "variableNamingConvention", 1);
    c->structured = conv && !strcmp(conv, "structured");
    const child_spec seq[] = {{"ModelExchange", 0, 1}, {"CoSimulation", 0, 1}, {"UnitDefinitions", 0, 1},
                              {"TypeDefinitions", 0, 1}, {"LogCategories", 0, 1},
                              {"DefaultExperiment", 0, 1}, {"VendorAnnotations", 0, 1},
                              {"ModelVariables", 1, 1}, {"ModelStructure", 1, 1}, {NULL, 0, 0}};
    const xmlNode *first[10];
    if (sequence(c, n, seq, first) < 0) return -1;
    if (first[0]) return bad(c, first[0], "the FMU offers co-simulation only (no ModelExchange functions)");
    if (!first[1]) return bad(c, n, "<CoSimulation> is missing");
    if (co_simulation(c, first[1]) < 0) return -1;
    if (first[2] || first[3]) return bad(c, first[2] ? first[2] : first[3], "not checked here (the FMU writes none)");
    if (first[4] && log_categories(c, first[4]) < 0) return -1;
    if (first[5] && default_experiment(c, first[5]) < 0) return -1;
    if (model_variables(c, first[7]) < 0) return -1;
    return model_structure(c, first[8]);
}

int fmi2_check_description(const char *text, size_t len, char *err, size_t n)
{
    ctx c = {err, n, 0, 0, NULL};
    xmlDoc *doc = xmlReadMemory(text, (int)len, "modelDescription.xml", NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) return snprintf(err, n, "not well-formed XML"), -1;
    const int st = root(&c, xmlDocGetRootElement(doc));
    free(c.vars);
    xmlFreeDoc(doc);
    return st;
}
