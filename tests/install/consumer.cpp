// C++ user of the installed library: the README's pendulum, through find_package(mbs).
// Prints the same line as the README's C example so the install test can compare them.
#include <cstdio>
#include <memory>

#include <mbs/mbs.h>

int main()
{
    std::unique_ptr<mbs_builder, void (*)(mbs_builder *)> b(mbs_builder_create(),
                                                            mbs_builder_destroy);
    mbs_body_def link = mbs_default_body_def();
    link.mass = 1.0;
    link.com[0] = 0.5;
    const int body = mbs_add_body(b.get(), &link);
    mbs_joint_def hinge = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    hinge.parent = MBS_WORLD;
    hinge.child = body;
    hinge.axis[0] = 0;
    hinge.axis[1] = 1;
    hinge.axis[2] = 0;
    mbs_add_joint(b.get(), &hinge);
    mbs_model *m = nullptr;
    if (mbs_compile(b.get(), &m) != MBS_OK) {
        std::fprintf(stderr, "%s\n", mbs_builder_error(b.get()));
        return 1;
    }
    mbs_data *d = mbs_data_create(m);
    const mbs_stepper_def sd = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &sd);
    for (int k = 0; k < 1000; ++k)
        if (mbs_stepper_step(s, 1e-3) != MBS_OK) {
            std::fprintf(stderr, "%s\n", mbs_data_error(d));
            return 1;
        }
    std::printf("t = %.3f  angle = %.6f rad\n", mbs_data_time(d), mbs_data_q(d)[0]);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    return 0;
}
