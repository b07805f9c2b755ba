/* modelDescription.xml of an mbs FMI 3.0 co-simulation FMU (FMI 3.0, §2.4 and §4.3): the
 * variable table of fmu_vars.h with the same value references as FMI 2.0, the independent
 * variable `time` after them, the co-simulation capabilities of the runtime (no event mode,
 * no intermediate update, no FMU state), and the model structure (every output is an
 * initial unknown). */
#include "fmu_pack.h"

#include <stdio.h>
#include <string.h>

static void header(FILE *f, const fmu_pack *p)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"3.0\" "
          "modelName=\"", f);
    fmu_put_escaped(f, p->model_name);
    fprintf(f, "\" instantiationToken=\"%s\" description=\"mbs multibody model, ", p->guid);
    fmu_put_escaped(f, p->source_name);
    fputs("\" generationTool=\"mbs-fmu\" variableNamingConvention=\"structured\">\n", f);
    fprintf(f, "  <CoSimulation modelIdentifier=\"%s\" canHandleVariableCommunicationStepSize="
               "\"true\" canGetAndSetFMUState=\"false\" canSerializeFMUState=\"false\" "
               "providesDirectionalDerivatives=\"false\" providesAdjointDerivatives=\"false\" "
               "hasEventMode=\"false\" canReturnEarlyAfterIntermediateUpdate=\"false\" "
               "providesIntermediateUpdate=\"false\"/>\n", p->identifier);
    fputs("  <LogCategories>\n    <Category name=\"logStatusError\"/>\n"
          "    <Category name=\"logAll\"/>\n  </LogCategories>\n", f);
    fputs("  <DefaultExperiment startTime=\"0\" stepSize=\"0.001\"/>\n", f);
}

/* One variable of the table (FMI 3: the type is the element). */
static void variable(FILE *f, const fmu_var *v, int vr)
{
    const char *type = v->kind == FMU_USE_CVODE ? "Boolean" : v->kind == FMU_MAX_WORK ? "Int32" : "Float64";
    fprintf(f, "    <%s name=\"", type);
    fmu_put_escaped(f, v->name);
    fprintf(f, "\" valueReference=\"%d\" causality=\"%s\"", vr, fmu_var_causality(v->kind));
    if (v->kind == FMU_STEP_SIZE) fputs(" variability=\"fixed\" start=\"0.001\"/>\n", f);
    else if (v->kind == FMU_USE_CVODE) fputs(" variability=\"fixed\" start=\"false\"/>\n", f);
    else if (v->kind == FMU_MAX_WORK) fputs(" variability=\"fixed\" start=\"0\"/>\n", f);
    else if (!strcmp(fmu_var_causality(v->kind), "input")) fputs(" variability=\"continuous\" start=\"0\"/>\n", f);
    else fputs(" variability=\"continuous\" initial=\"calculated\"/>\n", f);
}

int fmu_write_description3(FILE *f, const fmu_pack *p, const fmu_vars *vars)
{
    header(f, p);
    fputs("  <ModelVariables>\n", f);
    for (int i = 0; i < vars->n; ++i) variable(f, &vars->v[i], i);
    fprintf(f, "    <Float64 name=\"time\" valueReference=\"%d\" causality=\"independent\" "
               "variability=\"continuous\"/>\n", vars->n);
    fputs("  </ModelVariables>\n  <ModelStructure>\n", f);
    for (int i = 0; i < vars->n; ++i) /* FMI 3 names unknowns by value reference */
        if (!strcmp(fmu_var_causality(vars->v[i].kind), "output"))
            fprintf(f, "    <Output valueReference=\"%d\" dependencies=\"\"/>\n", i);
    for (int i = 0; i < vars->n; ++i)
        if (!strcmp(fmu_var_causality(vars->v[i].kind), "output"))
            fprintf(f, "    <InitialUnknown valueReference=\"%d\"/>\n", i);
    fputs("  </ModelStructure>\n</fmiModelDescription>\n", f);
    return ferror(f) ? -1 : 0;
}
