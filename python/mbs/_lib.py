"""Loading libmbs and declaring the C prototypes (ctypes, no compiled extension).

The shared library is found, in this order, at $MBS_LIBRARY, where _config.py (written by
meson at install time) says: the installed library, or a path relative to this package (a
wheel from `pip install .` holds libmbs.so beside this file), through the system loader
(ldconfig), and in ../build of a source tree.

The def structs (mbs_body_def, ...) end with a reserved tail: mbs appends new fields at the
end of its def structs, and a default_*_def() call returns the struct by value, so the
Python struct must never be smaller than the C one. The tail receives the C defaults of any
field this binding does not name yet and hands them back unchanged.
"""
import ctypes
import ctypes.util
import os

c_double_p = ctypes.POINTER(ctypes.c_double)
c_int_p = ctypes.POINTER(ctypes.c_int)
_TAIL = 512


def _candidates():
    env = os.environ.get("MBS_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _config  # written at install time
        yield os.path.join(here, _config.LIBRARY)  # an absolute LIBRARY stays as it is
    except ImportError:
        pass
    found = ctypes.util.find_library("mbs")
    if found:
        yield found
    for name in ("libmbs.so.0", "libmbs.so"):  # an uninstalled build: soname file first
        yield os.path.join(here, "..", "..", "build", name)


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("libmbs not found (set MBS_LIBRARY to libmbs.so); tried:\n  " +
                      "\n  ".join(tried))


lib = _load()


LOAD_WARNING_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class LoadOptions(ctypes.Structure):
    _fields_ = [("floating_base", ctypes.c_int), ("balance_inertia", ctypes.c_int),
                ("warning", LOAD_WARNING_FN), ("user", ctypes.c_void_p),
                ("_tail", ctypes.c_char * _TAIL)]


class Frame(ctypes.Structure):
    _fields_ = [("pos", ctypes.c_double * 3), ("rot", ctypes.c_double * 9)]


class BodyDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("mass", ctypes.c_double),
                ("com", ctypes.c_double * 3), ("inertia", ctypes.c_double * 9),
                ("_tail", ctypes.c_char * _TAIL)]


class JointDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("parent", ctypes.c_int), ("child", ctypes.c_int),
                ("frame_parent", Frame), ("frame_child", Frame),
                ("axis", ctypes.c_double * 3), ("axis2", ctypes.c_double * 3),
                ("rotation", ctypes.c_int), ("length", ctypes.c_double),
                ("cut", ctypes.c_int), ("state_priority", ctypes.c_int),
                ("_tail", ctypes.c_char * _TAIL)]


class SpringDamperDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("body_a", ctypes.c_int), ("body_b", ctypes.c_int),
                ("point_a", ctypes.c_double * 3), ("point_b", ctypes.c_double * 3),
                ("stiffness", ctypes.c_double), ("damping", ctypes.c_double),
                ("rest_length", ctypes.c_double),
                ("mass", ctypes.c_double), ("mass_fraction", ctypes.c_double),
                ("_tail", ctypes.c_char * _TAIL)]


class LineForceTwoMassesDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("body_a", ctypes.c_int), ("body_b", ctypes.c_int),
                ("point_a", ctypes.c_double * 3), ("point_b", ctypes.c_double * 3),
                ("stiffness", ctypes.c_double), ("damping", ctypes.c_double),
                ("rest_length", ctypes.c_double),
                ("mass_a", ctypes.c_double), ("distance_a", ctypes.c_double),
                ("mass_b", ctypes.c_double), ("distance_b", ctypes.c_double),
                ("_tail", ctypes.c_char * _TAIL)]


class RotorDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("joint", ctypes.c_int), ("dof", ctypes.c_int),
                ("inertia", ctypes.c_double), ("ratio", ctypes.c_double),
                ("housing", ctypes.c_int), ("axis", ctypes.c_double * 3),
                ("_tail", ctypes.c_char * _TAIL)]


class StepperDef(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("rtol", ctypes.c_double), ("atol", ctypes.c_double),
                ("max_step", ctypes.c_double), ("max_internal_steps", ctypes.c_long),
                ("err_rtol", ctypes.c_double), ("err_atol", ctypes.c_double),
                ("event_tol", ctypes.c_double), ("no_divergence_guard", ctypes.c_int),
                ("max_work", ctypes.c_ulong), ("_tail", ctypes.c_char * _TAIL)]


class Work(ctypes.Structure):
    """mbs_work: the load-independent work counters of a data."""
    _fields_ = [("evals", ctypes.c_ulong), ("newton", ctypes.c_ulong),
                ("factor", ctypes.c_ulong), ("select", ctypes.c_ulong),
                ("event_iter", ctypes.c_ulong)]


class PositionTarget(ctypes.Structure):
    """mbs_position_target: a body point (body coordinates) and where it must be (world)."""
    _fields_ = [("body", ctypes.c_int), ("point", ctypes.c_double * 3),
                ("pos", ctypes.c_double * 3)]


FORCE_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


# ---- friction, brakes, prescribed motion (mbs.h "events, prescribed motion, ...")
class JointFrictionDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("joint", ctypes.c_int), ("dof", ctypes.c_int),
                ("coulomb", ctypes.c_double), ("stiction", ctypes.c_double),
                ("viscous", ctypes.c_double), ("_tail", ctypes.c_char * _TAIL)]


class JointBrakeDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("joint", ctypes.c_int), ("dof", ctypes.c_int),
                ("limit", ctypes.c_double), ("peak", ctypes.c_double),
                ("_tail", ctypes.c_char * _TAIL)]


class ReactionFrictionDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("joint", ctypes.c_int), ("mu", ctypes.c_double),
                ("mu_stick", ctypes.c_double), ("radius", ctypes.c_double),
                ("axial", ctypes.c_double), ("_tail", ctypes.c_char * _TAIL)]


MOTION_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                             ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double),
                             ctypes.c_void_p)

_V, _P, _I, _D = ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_double
_S = ctypes.c_char_p
_PROTOTYPES = {
    "mbs_status_name": (_S, [_I]),
    "mbs_version": (_S, []),
    "mbs_builder_create": (_P, []),
    "mbs_builder_destroy": (None, [_P]),
    "mbs_builder_error": (_S, [_P]),
    "mbs_builder_clear_error": (None, [_P]),
    "mbs_builder_set_gravity": (_I, [_P, c_double_p]),
    "mbs_builder_set_point_gravity": (_I, [_P, c_double_p, _D]),
    "mbs_builder_set_no_gravity": (_I, [_P]),
    "mbs_builder_set_root_rotation": (_I, [_P, _I]),
    "mbs_builder_set_planar": (_I, [_P, _I]),
    "mbs_model_is_planar": (_I, [_P]),
    "mbs_builder_set_closure": (_I, [_P, _I]),
    "mbs_cut_joint_closure": (_I, [_P, _I]),
    "mbs_model_cut_assembly": (_S, [_P, _I]),
    "mbs_loop_newton_iterations": (ctypes.c_long, [_P]),
    "mbs_default_body_def": (BodyDef, []),
    "mbs_add_body": (_I, [_P, ctypes.POINTER(BodyDef)]),
    "mbs_default_joint_def": (JointDef, [_I]),
    "mbs_add_joint": (_I, [_P, ctypes.POINTER(JointDef)]),
    "mbs_default_spring_damper_def": (SpringDamperDef, []),
    "mbs_add_spring_damper": (_I, [_P, ctypes.POINTER(SpringDamperDef)]),
    "mbs_add_joint_spring_damper": (_I, [_P, _I, _I, _D, _D, _D]),
    "mbs_default_line_force_two_masses_def": (LineForceTwoMassesDef, []),
    "mbs_add_line_force_two_masses": (_I, [_P, ctypes.POINTER(LineForceTwoMassesDef)]),
    "mbs_default_rotor_def": (RotorDef, []),
    "mbs_add_rotor": (_I, [_P, ctypes.POINTER(RotorDef)]),
    "mbs_model_nrotor": (_I, [_P]), "mbs_model_nnode": (_I, [_P]),
    "mbs_model_body_is_node": (_I, [_P, _I]),
    "mbs_add_force_callback": (_I, [_P, _S, FORCE_CALLBACK, _V]),
    "mbs_add_joint_force": (_I, [_P, _I, _I, _D]),
    "mbs_set_joint_start": (_I, [_P, _I, c_double_p, _I, c_double_p, _I]),
    "mbs_set_joint_hold": (_I, [_P, _I, ctypes.POINTER(ctypes.c_ubyte), _I]),
    "mbs_model_start": (_I, [_P, c_double_p, c_double_p]),
    "mbs_model_hold": (_I, [_P, ctypes.POINTER(ctypes.c_ubyte)]),
    "mbs_compile": (_I, [_P, ctypes.POINTER(_P)]),
    "mbs_model_destroy": (None, [_P]),
    "mbs_model_nq": (_I, [_P]), "mbs_model_nv": (_I, [_P]), "mbs_model_nbody": (_I, [_P]),
    "mbs_model_njoint": (_I, [_P]), "mbs_model_ncon": (_I, [_P]),
    "mbs_model_nforce": (_I, [_P]),
    "mbs_model_joint_qadr": (_I, [_P, _I]), "mbs_model_joint_vadr": (_I, [_P, _I]),
    "mbs_model_joint_nq": (_I, [_P, _I]), "mbs_model_joint_nv": (_I, [_P, _I]),
    "mbs_model_joint_is_cut": (_I, [_P, _I]),
    "mbs_model_find_body": (_I, [_P, _S]), "mbs_model_find_joint": (_I, [_P, _S]),
    "mbs_model_body_name": (_S, [_P, _I]), "mbs_model_joint_name": (_S, [_P, _I]),
    "mbs_data_create": (_P, [_P]),
    "mbs_data_destroy": (None, [_P]),
    "mbs_data_error": (_S, [_P]),
    "mbs_data_q": (c_double_p, [_P]), "mbs_data_v": (c_double_p, [_P]),
    "mbs_data_tau": (c_double_p, [_P]), "mbs_data_qacc": (c_double_p, [_P]),
    "mbs_data_lambda": (c_double_p, [_P]),
    "mbs_data_time": (_D, [_P]), "mbs_data_set_time": (_I, [_P, _D]),
    "mbs_forward_dynamics": (_I, [_P]),
    "mbs_inverse_dynamics": (_I, [_P, c_double_p, c_double_p]),
    "mbs_mass_matrix": (_I, [_P, c_double_p]),
    "mbs_mass_matrix_factor": (_I, [_P, c_double_p]),
    "mbs_mass_matrix_solve": (_I, [_P, c_double_p, c_double_p]),
    "mbs_bias_forces": (_I, [_P, c_double_p]),
    "mbs_assemble": (_I, [_P]),
    "mbs_constraint_info": (_I, [_P, c_int_p, ctypes.POINTER(ctypes.c_ubyte)]),
    "mbs_body_pose": (_I, [_P, _I, c_double_p, c_double_p]),
    "mbs_body_velocity": (_I, [_P, _I, c_double_p, c_double_p]),
    "mbs_energy": (_I, [_P, c_double_p, c_double_p]),
    "mbs_apply_body_wrench": (_I, [_P, _I, c_double_p, c_double_p, c_double_p]),
    "mbs_apply_generalized_force": (_I, [_P, _I, _D]),
    "mbs_set_body_wrench": (_I, [_P, _I, c_double_p, c_double_p, c_double_p]),
    "mbs_integrate_q": (_I, [_P, c_double_p, c_double_p, _D, c_double_p]),
    "mbs_difference_q": (_I, [_P, c_double_p, c_double_p, c_double_p]),
    "mbs_normalize_q": (_I, [_P, c_double_p]),
    "mbs_neutral_q": (_I, [_P, c_double_p]),
    "mbs_point_jacobian": (_I, [_P, _I, c_double_p, c_double_p]),
    "mbs_point_bias_acceleration": (_I, [_P, _I, c_double_p, c_double_p]),
    "mbs_com": (_I, [_P, c_double_p]),
    "mbs_momentum": (_I, [_P, c_double_p, c_double_p]),
    "mbs_joint_reaction": (_I, [_P, _I, c_double_p, c_double_p]),
    "mbs_inverse_dynamics_actuated": (_I, [_P, c_double_p, c_int_p, _I, c_double_p]),
    "mbs_equilibrium": (_I, [_P, ctypes.POINTER(ctypes.c_ubyte)]),
    "mbs_solve_positions": (_I, [_P, ctypes.POINTER(PositionTarget), _I,
                                 ctypes.POINTER(ctypes.c_ubyte)]),
    "mbs_inverse_dynamics_derivatives": (_I, [_P, c_double_p, c_double_p, c_double_p,
                                              c_double_p]),
    "mbs_forward_dynamics_derivatives": (_I, [_P, c_double_p, c_double_p, c_double_p]),
    "mbs_linearize": (_I, [_P, c_double_p, c_double_p, c_int_p]),
    "mbs_linearize_coordinates": (_I, [_P, ctypes.POINTER(ctypes.c_ubyte), c_int_p]),
    "mbs_modes": (_I, [_P, c_double_p, c_double_p, c_int_p]),
    "mbs_default_stepper_def": (StepperDef, [_I]),
    "mbs_stepper_create": (_P, [_P, ctypes.POINTER(StepperDef)]),
    "mbs_data_work": (_I, [_P, ctypes.POINTER(Work)]),
    "mbs_work_units": (ctypes.c_ulong, [ctypes.POINTER(Work)]),
    "mbs_stepper_worst_work": (_I, [_P, _D, ctypes.POINTER(Work), ctypes.POINTER(Work)]),
    "mbs_stepper_destroy": (None, [_P]),
    "mbs_stepper_step": (_I, [_P, _D]),
    # friction, brakes, prescribed motion
    "mbs_default_joint_friction_def": (JointFrictionDef, []),
    "mbs_add_joint_friction": (_I, [_P, ctypes.POINTER(JointFrictionDef)]),
    "mbs_default_joint_brake_def": (JointBrakeDef, []),
    "mbs_add_joint_brake": (_I, [_P, ctypes.POINTER(JointBrakeDef)]),
    "mbs_default_reaction_friction_def": (ReactionFrictionDef, []),
    "mbs_add_reaction_friction": (_I, [_P, ctypes.POINTER(ReactionFrictionDef)]),
    "mbs_add_joint_motion": (_I, [_P, _I, _I, MOTION_FN, _V]),
    "mbs_joint_is_locked": (_I, [_P, _I, _I]),
    "mbs_data_friction_force": (_D, [_P, _I, _I]),
    "mbs_data_driving_force": (_D, [_P, _I, _I]),
    "mbs_set_brake_limit": (_I, [_P, _I, _D]),
    "mbs_default_load_options": (LoadOptions, []),
    "mbs_builder_load_with": (_I, [_P, ctypes.c_char_p, ctypes.POINTER(LoadOptions)]),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def has(name):
    """True when the loaded libmbs exports the C function `name`."""
    return hasattr(lib, name)
