/* bench_vs_bullet: Bullet's btMultiBody Featherstone ABA against mbs ABA on the same
   revolute chain. Usage: bench_vs_bullet [--quick] [--cpu-time] */
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <LinearMath/btScalar.h>
#include <cstdio>
#include <new>

#include "bench_common.h"

namespace {

/* Bullet's velocity update uses this step; qacc = (v_after - v_before) / dt. */
const btScalar kDt = 1e-3;

struct BulletChain {
    btMultiBody *mb;
    const bench_states *s;
    btAlignedObjectArray<btScalar> scratch_r;
    btAlignedObjectArray<btVector3> scratch_v;
    btAlignedObjectArray<btMatrix3x3> scratch_m;
};

/* Vector along body axis 1 (y) or 2 (z). */
btVector3 axis_vector(int axis)
{
    return axis == 1 ? btVector3(0, 1, 0) : btVector3(0, 0, 1);
}

/* Build the chain as a fixed-base btMultiBody without damping, gravity as link forces. */
void *bt_create(int n, const bench_link *links, const bench_states *s)
{
    BulletChain *c = new (std::nothrow) BulletChain;
    if (!c)
        return nullptr;
    c->s = s;
    c->mb = new btMultiBody(n, 1.0, btVector3(1, 1, 1), true, false);
    for (int i = 0; i < n; ++i) {
        const bench_link &l = links[i];
        btVector3 pivot = i == 0 ? btVector3(0, 0, 0)
                                 : btVector3(links[i - 1].length - links[i - 1].com[0], 0, 0);
        c->mb->setupRevolute(i, l.mass, btVector3(l.inertia[0], l.inertia[1], l.inertia[2]),
                             i - 1, btQuaternion(0, 0, 0, 1), axis_vector(l.axis), pivot,
                             btVector3(l.com[0], l.com[1], l.com[2]), false);
    }
    c->mb->finalizeMultiDof();
    c->mb->setLinearDamping(0);
    c->mb->setAngularDamping(0);
    c->mb->setMaxCoordinateVelocity(1e30);
    c->mb->setUseGyroTerm(true);
    for (int i = 0; i < n; ++i) /* never cleared: ABA only reads the applied forces */
        c->mb->addLinkForce(i, btVector3(0, 0, -9.81 * links[i].mass));
    return c;
}

/* Load state k and run Bullet's ABA (which then adds qacc * dt to the velocities). */
int bt_call(void *ctx, int k)
{
    BulletChain *c = static_cast<BulletChain *>(ctx);
    int i = k % c->s->nstate, n = c->s->nv;
    const double *q = c->s->q + static_cast<size_t>(i) * static_cast<size_t>(n);
    const double *v = c->s->v + static_cast<size_t>(i) * static_cast<size_t>(n);
    for (int j = 0; j < n; ++j) {
        c->mb->setJointPos(j, q[j]);
        c->mb->setJointVel(j, v[j]);
    }
    c->mb->computeAccelerationsArticulatedBodyAlgorithmMultiDof(kDt, c->scratch_r, c->scratch_v,
                                                                c->scratch_m, false, false,
                                                                false);
    return 0;
}

/* Joint accelerations of state k from the velocity change over kDt. */
int bt_qacc(void *ctx, int k, double *qacc)
{
    BulletChain *c = static_cast<BulletChain *>(ctx);
    bt_call(ctx, k);
    int i = k % c->s->nstate, n = c->s->nv;
    const double *v = c->s->v + static_cast<size_t>(i) * static_cast<size_t>(n);
    for (int j = 0; j < n; ++j)
        qacc[j] = (c->mb->getJointVel(j) - v[j]) / kDt;
    return 0;
}

/* Free the multibody. */
void bt_destroy(void *ctx)
{
    BulletChain *c = static_cast<BulletChain *>(ctx);
    delete c->mb;
    delete c;
}

} // namespace

/* Entry point. */
int main(int argc, char **argv)
{
    char name[96];
    std::snprintf(name, sizeof name, "Bullet %d (double) btMultiBody ABA", btGetVersion());
    bench_other o = {name, bt_create, bt_call, bt_qacc, bt_destroy};
    return bench_compare(&o, argc, argv);
}
