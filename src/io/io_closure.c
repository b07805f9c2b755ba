/* Model files: the superset's elements of loops closed in closed form and of curve-curve
 * contact (docs/model-files.md):
 *   <closure strategy="analytic|newton"/>
 *   <curve_joint name parent child rolling="true|false">
 *     <origin xyz rpy/>  <child_origin xyz rpy/>           the curves' frames
 *     <curve_parent kind="line|circle|ellipse" a b flip="true|false" s/>
 *     <curve_child .../>
 *   </curve_joint>
 * User curves (a C function) have no form in a file. */
#include "io/io.h"

#include <string.h>

/* <closure strategy="analytic|newton"/>. */
int io_read_closure(io_ctx *c, const xmlNode *n)
{
    const char *buf = io_attr(n, "strategy");
    if (!buf)
        return io_fail(c, n, MBS_ERR_ARG, "attribute strategy is missing (analytic or newton)");
    const int analytic = !strcmp(buf, "analytic");
    if (!analytic && strcmp(buf, "newton"))
        return io_fail(c, n, MBS_ERR_ARG, "strategy must be analytic or newton, not \"%.64s\"", buf);
    const int st = mbs_builder_set_closure(c->b, analytic ? MBS_CLOSURE_ANALYTIC : MBS_CLOSURE_NEWTON);
    return st < 0 ? io_fail_builder(c, n, st) : MBS_OK;
}

/* The curve of child element tag of n into *cv and its start parameter into *s. */
static int read_curve(io_ctx *c, const xmlNode *n, const char *tag, mbs_curve *cv, double *s)
{
    static const char *const kinds[] = {"line", "circle", "ellipse"};
    const xmlNode *e;
    static const char *const known[] = {"kind", "a", "b", "flip", "s", NULL};
    if (io_one(c, n, tag, &e) != MBS_OK) return MBS_ERR_ARG;
    if (!e) return io_fail(c, n, MBS_ERR_ARG, "<%s> is missing", tag);
    if (io_check_attrs(c, e, known) != MBS_OK) return MBS_ERR_ARG;
    const char *buf = io_attr(e, "kind");
    if (!buf) return io_fail(c, e, MBS_ERR_ARG, "attribute kind is missing");
    int k = -1;
    for (int i = 0; i < 3; ++i)
        if (!strcmp(buf, kinds[i])) k = i;
    if (k < 0)
        return io_fail(c, e, MBS_ERR_ARG, "kind must be line, circle or ellipse, not \"%.64s\" (user "
                       "curves are C functions: mbs_add_curve_joint)", buf);
    cv->kind = (mbs_curve_kind)k;
    if (io_numbers(c, e, "a", &cv->a, 1) < 0 || io_numbers(c, e, "b", &cv->b, 1) < 0 ||
        io_numbers(c, e, "s", s, 1) < 0)
        return MBS_ERR_ARG;
    return io_flag(c, e, "flip", &cv->flip);
}

/* <curve_joint>: see the file comment. */
int io_read_curve_joint(io_ctx *c, const xmlNode *n)
{
    mbs_curve_joint_def d = mbs_default_curve_joint_def();
    d.name = io_attr(n, "name");
    int st = io_link_body(c, n, "parent", &d.parent);
    if (st == MBS_OK) st = io_link_body(c, n, "child", &d.child);
    if (st == MBS_OK) st = io_origin(c, n, "origin", &d.frame_parent);
    if (st == MBS_OK) st = io_origin(c, n, "child_origin", &d.frame_child);
    if (st == MBS_OK) st = read_curve(c, n, "curve_parent", &d.curve_parent, &d.s_parent);
    if (st == MBS_OK) st = read_curve(c, n, "curve_child", &d.curve_child, &d.s_child);
    if (st == MBS_OK) st = io_flag(c, n, "rolling", &d.rolling);
    if (st != MBS_OK) return st;
    const int id = mbs_add_curve_joint(c->b, &d);
    return id < 0 ? io_fail_builder(c, n, id) : MBS_OK;
}
