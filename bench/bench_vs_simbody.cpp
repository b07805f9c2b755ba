/* bench_vs_simbody: Simbody's realize(Acceleration) against mbs ABA on the same revolute
   chain of MobilizedBody::Pin. Usage: bench_vs_simbody [--quick] [--cpu-time] */
#include <Simbody.h>
#include <cstdio>
#include <exception>

#include "bench_common.h"

using namespace SimTK;

namespace {

struct SimbodyChain {
    MultibodySystem system;
    SimbodyMatterSubsystem matter;
    GeneralForceSubsystem forces;
    State state;
    const bench_states *s;
    SimbodyChain() : matter(system), forces(system), s(nullptr) {}
};

/* Add the pins; the pin axis (z of the mobilizer frames) is turned onto y for odd links. */
void add_links(SimbodyChain &c, int n, const bench_link *links)
{
    MobilizedBody parent = c.matter.updGround();
    for (int i = 0; i < n; ++i) {
        const bench_link &l = links[i];
        Vec3 com(l.com[0], l.com[1], l.com[2]);
        Inertia central(Vec3(l.inertia[0], l.inertia[1], l.inertia[2]));
        Body::Rigid body(MassProperties(l.mass, com, central.shiftFromMassCenter(com, l.mass)));
        Rotation r(l.axis == 2 ? 0.0 : -Pi / 2, XAxis);
        double offset = i == 0 ? 0.0 : links[i - 1].length;
        MobilizedBody::Pin pin(parent, Transform(r, Vec3(offset, 0, 0)), body,
                               Transform(r, Vec3(0)));
        parent = pin;
    }
}

/* Build the Simbody system with uniform gravity. */
void *sb_create(int n, const bench_link *links, const bench_states *s)
{
    try {
        SimbodyChain *c = new SimbodyChain;
        c->s = s;
        Force::UniformGravity gravity(c->forces, c->matter, Vec3(0, 0, -9.81));
        add_links(*c, n, links);
        c->state = c->system.realizeTopology();
        return c;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "Simbody: %s\n", e.what());
        return nullptr;
    }
}

/* Load state k and realize the acceleration stage. */
int sb_call(void *ctx, int k)
{
    SimbodyChain *c = static_cast<SimbodyChain *>(ctx);
    int i = k % c->s->nstate, n = c->s->nv;
    const double *q = c->s->q + static_cast<size_t>(i) * static_cast<size_t>(n);
    const double *v = c->s->v + static_cast<size_t>(i) * static_cast<size_t>(n);
    Vector &Q = c->state.updQ();
    for (int j = 0; j < n; ++j)
        Q[j] = q[j];
    Vector &U = c->state.updU();
    for (int j = 0; j < n; ++j)
        U[j] = v[j];
    c->system.realize(c->state, Stage::Acceleration);
    return 0;
}

/* Joint accelerations of state k. */
int sb_qacc(void *ctx, int k, double *qacc)
{
    SimbodyChain *c = static_cast<SimbodyChain *>(ctx);
    sb_call(ctx, k);
    const Vector &udot = c->state.getUDot();
    for (int j = 0; j < c->s->nv; ++j)
        qacc[j] = udot[j];
    return 0;
}

/* Free the system. */
void sb_destroy(void *ctx)
{
    delete static_cast<SimbodyChain *>(ctx);
}

} // namespace

/* Entry point. */
int main(int argc, char **argv)
{
    bench_other o = {"Simbody 3.7 realize(Acceleration)", sb_create, sb_call, sb_qacc,
                     sb_destroy};
    return bench_compare(&o, argc, argv);
}
