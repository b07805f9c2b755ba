/* The animation scene and recording of mbs-sim (tools/sim/sim_anim.c): a body's own visuals are
 * drawn as given (mesh visuals counted, not drawn), a body without visuals gets a sphere at
 * its centre of mass sized by the cube root of its mass and a cylinder along the axis of the
 * joint into it, springs and distance rods become moving lines; frames are taken at 60 fps
 * with the last one always kept, and each frame's position and quaternion reproduce
 * mbs_body_pose; the --animate / --gltf options parse and refuse empty names; the writers
 * report an unwritable path; STL mesh visuals (binary and ASCII, package:// and relative
 * names) are read and scaled, a missing one is skipped with its name. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "sim_anim.h"

/* Model: body "boxed" (visuals: a box and a mesh) on a revolute about y from the world, body
   "bare" (no visuals, mass 8) on a revolute about x' (frame_child turned 90 degrees about z)
   from "boxed"; a spring between them and a distance rod from the world to "bare". */
static mbs_model *scene_model(void)
{
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "boxed";
    bd.mass = 1.0;
    assert_int_equal(mbs_add_body(b, &bd), 1);
    bd.name = "bare";
    bd.mass = 8.0;
    bd.com[0] = 0.4;
    assert_int_equal(mbs_add_body(b, &bd), 2);
    mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    j.child = 1;
    j.axis[0] = 0, j.axis[1] = 1, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 0);
    j.parent = 1, j.child = 2;
    j.frame_parent.pos[0] = 1.0;
    const double Rz[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    memcpy(j.frame_child.rot, Rz, sizeof Rz);
    j.axis[0] = 1, j.axis[1] = 0, j.axis[2] = 0;
    assert_int_equal(mbs_add_joint(b, &j), 1);
    mbs_visual_def v = mbs_default_visual_def();
    v.body = 1;
    v.shape = MBS_SHAPE_BOX;
    v.frame.pos[0] = 0.5;
    v.size[0] = 1.0, v.size[1] = 0.1, v.size[2] = 0.2;
    v.color[0] = 0.9;
    assert_int_equal(mbs_add_visual(b, &v), 0);
    v.shape = MBS_SHAPE_MESH;
    v.mesh = "link.stl";
    assert_int_equal(mbs_add_visual(b, &v), 1);
    mbs_spring_damper_def s = mbs_default_spring_damper_def();
    s.body_a = 1, s.body_b = 2, s.stiffness = 10.0;
    s.point_a[0] = 0.2, s.point_b[1] = 0.3;
    assert_int_equal(mbs_add_spring_damper(b, &s), 0);
    mbs_joint_def rod = mbs_default_joint_def(MBS_JOINT_DISTANCE);
    rod.child = 2;
    rod.frame_parent.pos[0] = 1.0, rod.frame_parent.pos[2] = -1.0;
    rod.length = 1.0;
    assert_int_equal(mbs_add_joint(b, &rod), 2);
    mbs_model *m = NULL;
    if (mbs_compile(b, &m) != MBS_OK) print_error("%s\n", mbs_builder_error(b));
    mbs_builder_destroy(b);
    assert_non_null(m);
    return m;
}

/* v rotated by quaternion q (x, y, z, w). */
static void qrot(const double q[4], const double v[3], double out[3])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                         2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; ++i) out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* Shapes, lines and defaults of the scene. */
static void test_scene(void **state)
{
    (void)state;
    mbs_model *m = scene_model();
    mbs_data *d = mbs_data_create(m);
    assert_int_equal(mbs_assemble(d), MBS_OK);
    sim_anim a;
    char err[SIM_MSG];
    assert_int_equal(sim_anim_begin(&a, m, d, 1, NULL, err, sizeof err), 0);
    assert_int_equal(a.nmesh_skipped, 1);
    assert_string_equal(a.names[1], "boxed");
    int nbox = 0, nsphere = 0, ncyl = 0;
    for (int i = 0; i < a.nshape; ++i) {
        const sim_shape *s = &a.shapes[i];
        if (s->kind == MBS_SHAPE_BOX) { /* the visual, unchanged, on body 1 only */
            ++nbox;
            assert_int_equal(s->body, 1);
            assert_true(s->pos[0] == 0.5 && s->size[0] == 1.0 && s->size[2] == 0.2);
            assert_true(s->color[0] == 0.9 && s->quat[3] == 1.0);
        } else if (s->kind == MBS_SHAPE_SPHERE) { /* default of "bare": com, largest mass */
            ++nsphere;
            assert_int_equal(s->body, 2);
            assert_true(s->pos[0] == 0.4);
            assert_true(fabs(s->size[0] - 0.06 * a.scale) < 1e-15);
        } else { /* the joint into "bare": along frame_child.rot * x = body y */
            ++ncyl;
            assert_int_equal(s->body, 2);
            const double z[3] = {0, 0, 1};
            double u[3];
            qrot(s->quat, z, u);
            assert_true(fabs(u[0]) < 1e-12 && fabs(u[1] - 1.0) < 1e-12 && fabs(u[2]) < 1e-12);
        }
    }
    assert_int_equal(nbox, 1);
    assert_int_equal(nsphere, 1); /* body 1 has a visual: no default sphere */
    assert_int_equal(ncyl, 1);    /* body 1 has a visual: no joint cylinder on it */
    assert_int_equal(a.nline, 2); /* the rod, then the spring */
    assert_true(a.lines[0].body_a == 0 && a.lines[0].body_b == 2 && a.lines[0].pa[2] == -1.0);
    assert_true(a.lines[1].body_a == 1 && a.lines[1].body_b == 2 && a.lines[1].pb[1] == 0.3);
    assert_true(a.scale > 1.0 && a.scale < 3.0);
    sim_anim_free(&a);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Frames at 60 fps from 1 ms RK4 steps over 0.5 s; each reproduces the body poses. */
static void test_frames(void **state)
{
    (void)state;
    mbs_model *m = scene_model();
    mbs_data *d = mbs_data_create(m);
    mbs_data_v(d)[0] = 2.0;
    assert_int_equal(mbs_assemble(d), MBS_OK);
    mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *st = mbs_stepper_create(d, &sd);
    sim_anim a;
    char err[SIM_MSG];
    assert_int_equal(sim_anim_begin(&a, m, d, 0, NULL, err, sizeof err), 0);
    double worst = 0.0;
    for (int k = 0; k <= 500; ++k) {
        if (k > 0) assert_int_equal(mbs_stepper_step(st, 1e-3), MBS_OK);
        const long before = a.nframe;
        assert_int_equal(sim_anim_sample(&a, d, 1.5, 0.0, k == 500, err, sizeof err), 0);
        if (a.nframe == before) continue;
        const float *f = a.frames + (a.nframe - 1) * a.stride;
        assert_true(f[1] == 1.5f);
        for (int b = 1; b < a.nbody; ++b) {
            double pos[3], R[9], q[4];
            mbs_body_pose(d, b, pos, R);
            for (int i = 0; i < 4; ++i) q[i] = f[3 + 7 * (b - 1) + 3 + i];
            for (int c = 0; c < 3; ++c) {
                const double e[3] = {c == 0, c == 1, c == 2};
                double u[3];
                qrot(q, e, u);
                for (int i = 0; i < 3; ++i) worst = fmax(worst, fabs(u[i] - R[3 * i + c]));
                worst = fmax(worst, fabs(f[3 + 7 * (b - 1) + c] - pos[c]));
            }
        }
    }
    assert_int_equal(a.nframe, 31); /* 0, 1/60, ..., 30/60 = 0.5 */
    for (long k = 0; k < a.nframe; ++k)
        assert_true(fabs(a.frames[k * a.stride] - k / 60.0) < 1e-3);
    assert_true(fabs(sim_anim_duration(&a) - 0.5) < 1e-7);
    assert_true(worst < 1e-6); /* float32 storage */
    char bad[64];
    snprintf(bad, sizeof bad, "/nonexistent-dir/x.glb");
    assert_int_equal(sim_gltf_write(&a, bad, "t", err, sizeof err), -1);
    assert_non_null(strstr(err, bad));
    if (sim_anim_html_available()) {
        assert_int_equal(sim_anim_write_html(&a, "/nonexistent-dir/x.html", "t", err, sizeof err), -1);
        assert_non_null(strstr(err, "/nonexistent-dir/x.html"));
    }
    sim_anim_free(&a);
    mbs_stepper_destroy(st);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* --animate and --gltf parse (both forms) and refuse a missing or empty file name. */
static void test_options(void **state)
{
    (void)state;
    sim_options o;
    char err[SIM_MSG];
    char *ok[] = {"pendulum", "--animate", "p.html", "--gltf=p.glb"};
    assert_int_equal(sim_parse_run(4, ok, &o, err, sizeof err), 0);
    assert_string_equal(o.anim_path, "p.html");
    assert_string_equal(o.gltf_path, "p.glb");
    char *missing[] = {"pendulum", "--animate"};
    assert_int_equal(sim_parse_run(2, missing, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "--animate: missing value"));
    char *empty[] = {"pendulum", "--gltf="};
    assert_int_equal(sim_parse_run(2, empty, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "--gltf: empty file name"));
}

/* A binary STL of the unit tetrahedron (4 triangles) at path. */
static void write_tetra(const char *path)
{
    static const float V[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned char head[80] = {0};
    uint32_t n = 4;
    fwrite(head, 1, 80, f);
    fwrite(&n, 4, 1, f); /* little-endian machine */
    for (int t = 0; t < 4; ++t) {
        float rec[12] = {0};
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) rec[3 + 3 * k + c] = V[F[t][k]][c];
        fwrite(rec, 4, 12, f);
        fwrite("\0\0", 1, 2, f);
    }
    fclose(f);
}

/* Mesh visuals: binary STL through package://, ASCII STL relative to the model folder, a
   missing file skipped (its body then drawn with the defaults). */
static void test_meshes(void **state)
{
    (void)state;
    char dir[64], sub[128], path[192];
    snprintf(dir, sizeof dir, "/tmp/mbs_anim_test_%ld", (long)getpid());
    snprintf(sub, sizeof sub, "%s/pkg", dir);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    snprintf(path, sizeof path, "%s/pkg/meshes", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/pkg/urdf", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/pkg/meshes/tet.stl", dir);
    write_tetra(path);
    snprintf(path, sizeof path, "%s/pkg/urdf/tri.stl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("solid t\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 0.5 0 0\n"
          "   vertex 0 0.25 0\n  endloop\n endfacet\nendsolid t\n", f);
    fclose(f);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    for (int i = 1; i <= 2; ++i) {
        assert_int_equal(mbs_add_body(b, &bd), i);
        mbs_joint_def j = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
        j.parent = i - 1, j.child = i;
        j.frame_parent.pos[0] = i > 1 ? 1.0 : 0.0;
        assert_int_equal(mbs_add_joint(b, &j), i - 1);
    }
    const char *names[3] = {"package://pkg/meshes/tet.stl", "tri.stl", "missing.stl"};
    for (int k = 0; k < 3; ++k) {
        mbs_visual_def v = mbs_default_visual_def();
        v.shape = MBS_SHAPE_MESH;
        v.body = k < 2 ? 1 : 2;
        v.mesh = names[k];
        v.scale[0] = 2.0;
        assert_int_equal(mbs_add_visual(b, &v), k);
    }
    mbs_model *m = NULL;
    assert_int_equal(mbs_compile(b, &m), MBS_OK);
    mbs_builder_destroy(b);
    mbs_data *d = mbs_data_create(m);
    sim_anim a;
    char err[SIM_MSG], urdf[160];
    snprintf(urdf, sizeof urdf, "%s/pkg/urdf", dir);
    assert_int_equal(sim_anim_begin(&a, m, d, 0, urdf, err, sizeof err), 0);
    assert_int_equal(a.nmesh, 2);
    assert_int_equal(a.meshes[0].ntri, 4);
    assert_int_equal(a.meshes[1].ntri, 1);
    assert_true(a.meshes[0].tri[9 * 3] == 2.0f && a.meshes[0].tri[9 * 3 + 4] == 1.0f); /* (1,0,0) x2 */
    assert_true(a.meshes[1].tri[3] == 1.0f && a.meshes[1].tri[7] == 0.25f);
    assert_int_equal(a.nmesh_skipped, 1);
    assert_non_null(strstr(a.mesh_note, "missing.stl: not found"));
    int spheres[3] = {0, 0, 0};
    for (int i = 0; i < a.nshape; ++i)
        if (a.shapes[i].kind == MBS_SHAPE_SPHERE) spheres[a.shapes[i].body]++;
    assert_int_equal(spheres[1], 0); /* drawn by its meshes */
    assert_int_equal(spheres[2], 1); /* its mesh is missing: the default sphere */
    assert_int_equal(sim_anim_sample(&a, d, 0.0, 0.0, 1, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/m.glb", dir);
    assert_int_equal(sim_gltf_write(&a, path, "meshes", err, sizeof err), 0);
    if (sim_anim_html_available()) {
        snprintf(path, sizeof path, "%s/m.html", dir);
        assert_int_equal(sim_anim_write_html(&a, path, "meshes", err, sizeof err), 0);
    }
    if (!getenv("MBS_KEEP_TEST_FILES")) {
        const char *files[] = {"pkg/meshes/tet.stl", "pkg/urdf/tri.stl", "m.glb", "m.html",
                               "pkg/meshes", "pkg/urdf", "pkg", ""};
        for (int i = 0; i < 8; ++i) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            if (remove(path) != 0 && i < 3) fail();
        }
    }
    sim_anim_free(&a);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
