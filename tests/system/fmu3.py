#!/usr/bin/env python3
"""FMI 3.0 co-simulation FMUs of mbs-fmu (--fmi 3) against the FMI 2.0 FMUs of the same files
(themselves equal to mbs-sim bit for bit, tests/system/test_fmu.c): run by one minimal importer
(tests/support/fmu_min_importer.c), every output of every step equal to 17 digits; the FMI 3.0
modelDescription.xml checked against the standard's rules this FMU uses (Modelica
Association, "Functional Mock-up Interface Specification", version 3.0, 2022, §2.4: no XSD of
FMI 3.0 ships in a Debian package) and against the FMI 2.0 one (same names, value references,
causalities); the binary exports every FMI 3.0 function and nothing else of mbs's, and
answers fmi3Error to those it does not offer and to calls without an instance. Broken variants of a description are each
rejected, so the checker can fail.
Usage: fmu3.py MBS_FMU RUNTIME IMPORTER MODELS_DIR"""
import ctypes
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

RUNS = [('double_pendulum.xml', '0.3', '0.01', 'cvode'),
        ('planar_loop_tilted.xml', '0.3', '0.001', 'rk4')]
# every function of the FMI 3.0 C API (§2.2, §3.2, §4.2, §5.2)
FMI3_FUNCTIONS = (
    'GetVersion SetDebugLogging InstantiateModelExchange InstantiateCoSimulation '
    'InstantiateScheduledExecution FreeInstance EnterInitializationMode ExitInitializationMode '
    'EnterEventMode Terminate Reset GetFloat32 GetFloat64 GetInt8 GetUInt8 GetInt16 GetUInt16 '
    'GetInt32 GetUInt32 GetInt64 GetUInt64 GetBoolean GetString GetBinary GetClock SetFloat32 '
    'SetFloat64 SetInt8 SetUInt8 SetInt16 SetUInt16 SetInt32 SetUInt32 SetInt64 SetUInt64 '
    'SetBoolean SetString SetBinary SetClock GetNumberOfVariableDependencies '
    'GetVariableDependencies GetFMUState SetFMUState FreeFMUState SerializedFMUStateSize '
    'SerializeFMUState DeserializeFMUState GetDirectionalDerivative GetAdjointDerivative '
    'EnterConfigurationMode ExitConfigurationMode GetIntervalDecimal GetIntervalFraction '
    'GetShiftDecimal GetShiftFraction SetIntervalDecimal SetIntervalFraction SetShiftDecimal '
    'SetShiftFraction EvaluateDiscreteStates UpdateDiscreteStates EnterContinuousTimeMode '
    'CompletedIntegratorStep SetTime SetContinuousStates GetContinuousStateDerivatives '
    'GetEventIndicators GetContinuousStates GetNominalsOfContinuousStates '
    'GetNumberOfEventIndicators GetNumberOfContinuousStates EnterStepMode GetOutputDerivatives '
    'DoStep ActivateModelPartition').split()
TYPES = {'Float64', 'Int32', 'Boolean'}  # the types this FMU's variables use
CAUSALITIES = {'parameter', 'input', 'output', 'independent'}


def check_description3(text):
    """The reason an FMI 3.0 description breaks a rule, or None."""
    root = ET.fromstring(text)
    if root.tag != 'fmiModelDescription' or root.get('fmiVersion') != '3.0':
        return 'root is not fmiModelDescription fmiVersion="3.0"'
    for attr in ('modelName', 'instantiationToken'):
        if not root.get(attr):
            return f'{attr} missing'
    cs = root.find('CoSimulation')
    if cs is None or not cs.get('modelIdentifier') or root.find('ModelExchange') is not None:
        return 'one <CoSimulation modelIdentifier> and no <ModelExchange> expected'
    order = [c.tag for c in root]
    want = ['CoSimulation', 'LogCategories', 'DefaultExperiment', 'ModelVariables', 'ModelStructure']
    if order != want:
        return f'elements {order}, expected {want}'
    vars_ = list(root.find('ModelVariables'))
    vrs = [v.get('valueReference') for v in vars_]
    names = [v.get('name') for v in vars_]
    if len(set(vrs)) != len(vrs) or len(set(names)) != len(names):
        return 'value references or names not unique'
    for v in vars_:
        c = v.get('causality')
        if v.tag not in TYPES or c not in CAUSALITIES or not v.get('valueReference', '').isdigit():
            return f'variable {v.get("name")}: type {v.tag}, causality {c}'
        if (c in ('parameter', 'input')) != (v.get('start') is not None):
            return f'variable {v.get("name")}: a start value is required for {c} and only there'
        if c == 'parameter' and v.get('variability') not in ('fixed', 'tunable'):
            return f'parameter {v.get("name")}: variability {v.get("variability")}'
    indep = [v for v in vars_ if v.get('causality') == 'independent']
    if len(indep) != 1 or indep[0].tag != 'Float64' or indep[0].get('initial') is not None:
        return 'exactly one independent Float64 variable without start or initial expected'
    outs = [v.get('valueReference') for v in vars_ if v.get('causality') == 'output']
    ms = root.find('ModelStructure')
    if [u.get('valueReference') for u in ms.findall('Output')] != outs:
        return '<Output> elements differ from the outputs'
    if [u.get('valueReference') for u in ms.findall('InitialUnknown')] != outs:
        return '<InitialUnknown> elements differ from the outputs'
    if [c.tag for c in ms] != ['Output'] * len(outs) + ['InitialUnknown'] * len(outs):
        return 'ModelStructure: Outputs first, then InitialUnknowns'
    return None


def broken_variants(text):
    """Descriptions that break one rule each."""
    return [text.replace('fmiVersion="3.0"', 'fmiVersion="2.0"'),
            text.replace('causality="independent"', 'causality="local"'),
            text.replace('valueReference="3"', 'valueReference="2"', 1),
            text.replace('<Output valueReference="3" dependencies=""/>', '', 1),
            text.replace(' start="0.001"', '', 1),
            text.replace('<Float64 name="time"', '<Float32 name="time"'),
            text.replace(' instantiationToken="', ' guid="')]


def same_variables(d2, d3):
    """The FMI 3 variables are the FMI 2 ones (name, value reference, causality) and time."""
    v2 = [(v.get('name'), v.get('valueReference'), v.get('causality'))
          for v in ET.fromstring(d2).find('ModelVariables')]
    v3 = [(v.get('name'), v.get('valueReference'), v.get('causality'))
          for v in ET.fromstring(d3).find('ModelVariables')]
    return v3 == v2 + [('time', str(len(v2)), 'independent')]


def pack_run(tmp, mbs_fmu, runtime, importer, models, run, version):
    model, t_end, h, stepper = run
    d = os.path.join(tmp, f'{model}.{version}')
    subprocess.run([mbs_fmu, os.path.join(models, model), '-o', d + '.fmu', '--runtime', runtime,
                    '--fmi', version], check=True, stdout=subprocess.DEVNULL)
    with zipfile.ZipFile(d + '.fmu') as z:
        z.extractall(d)
    p = subprocess.run([importer, d, t_end, h, stepper], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f'{model} FMI {version}: {p.stderr}')
    with open(os.path.join(d, 'modelDescription.xml'), encoding='utf-8') as f:
        return d, p.stdout, f.read()


def check_binary_here(path):
    """The exports and refusals of the binary at path (run in a child: check_binary)."""
    so = ctypes.CDLL(path)
    missing = [f for f in FMI3_FUNCTIONS if not hasattr(so, 'fmi3' + f)]
    if missing:
        sys.exit(f'not exported: {missing}')
    if hasattr(so, 'mbs_forward_dynamics') or hasattr(so, 'tool_elements_read'):
        sys.exit('libmbs symbols are exported')
    so.fmi3GetVersion.restype = ctypes.c_char_p
    state = ctypes.c_void_p()
    if so.fmi3GetVersion() != b'3.0' or so.fmi3GetFMUState(None, ctypes.byref(state)) != 3:
        sys.exit('fmi3GetVersion is not "3.0" or fmi3GetFMUState does not answer fmi3Error')
    so.fmi3DoStep.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_bool] + [ctypes.c_void_p] * 4
    vr, val = ctypes.c_uint32(0), ctypes.c_double(0.0)
    if (so.fmi3DoStep(None, 0.0, 0.1, True, None, None, None, None) != 3
            or so.fmi3GetFloat64(None, ctypes.byref(vr), ctypes.c_size_t(1), ctypes.byref(val), ctypes.c_size_t(1)) != 3
            or so.fmi3Terminate(None) != 3):
        sys.exit('a call without an instance does not answer fmi3Error')
    so.fmi3InstantiateModelExchange.restype = ctypes.c_void_p
    if so.fmi3InstantiateModelExchange(b'x', b'y', b'/', False, False, None, None) is not None:
        sys.exit('fmi3InstantiateModelExchange gave an instance')


def check_binary(d, ident):
    """check_binary_here in a child Python; with the sanitizer's runtime loaded first when the
    binary is a sanitizer build's (leak checks off: Python's own allocations)"""
    path = os.path.join(d, 'binaries', 'x86_64-linux', ident + '.so')
    env = dict(os.environ)
    ldd = subprocess.run(['ldd', path], capture_output=True, text=True).stdout
    asan = [w for w in ldd.split() if '/libasan.so' in w]
    if asan:
        env.update(LD_PRELOAD=asan[0], ASAN_OPTIONS='detect_leaks=0')
    p = subprocess.run([sys.executable, __file__, '--binary', path], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f'{path}: {p.stdout}{p.stderr}')


def main():
    if sys.argv[1] == '--binary':
        check_binary_here(sys.argv[2])
        return
    mbs_fmu, runtime, importer, models = sys.argv[1:5]
    with tempfile.TemporaryDirectory(prefix='mbs_fmu3_') as tmp:
        for run in RUNS:
            _, out2, d2 = pack_run(tmp, mbs_fmu, runtime, importer, models, run, '2')
            d, out3, d3 = pack_run(tmp, mbs_fmu, runtime, importer, models, run, '3')
            why = check_description3(d3)
            if why or not same_variables(d2, d3):
                sys.exit(f'{run[0]}: FMI 3.0 description: {why or "variables differ from FMI 2.0"}')
            lines = out3.splitlines()
            if out2 != out3 or len(lines) != round(float(run[1]) / float(run[2])):
                sys.exit(f'{run[0]}: FMI 3.0 outputs differ from FMI 2.0 ({len(lines)} lines)')
            print(f'{run[0]} ({run[3]}): {len(lines)} steps, {len(lines[-1].split()) - 1} outputs '
                  f'equal in FMI 3.0 and FMI 2.0 to 17 digits')
            for k, bad in enumerate(broken_variants(d3)):
                if bad == d3 or check_description3(bad) is None:
                    sys.exit(f'broken description {k} was not rejected')
        check_binary(d, ET.fromstring(d3).find('CoSimulation').get('modelIdentifier'))
        print(f'{len(FMI3_FUNCTIONS)} FMI 3.0 functions exported, no libmbs symbol; '
              f'{len(broken_variants(d3))} broken descriptions rejected')


if __name__ == '__main__':
    main()
