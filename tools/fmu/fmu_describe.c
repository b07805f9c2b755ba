/* modelDescription.xml of an mbs co-simulation FMU (FMI 2.0, §2.2 and §4.3): the variable
 * table of fmu_vars.h in its order, the co-simulation capabilities of the runtime, and the
 * model structure (every output is an initial unknown, computed from the start state). */
#include "fmu_pack.h"

#include <stdio.h>
#include <string.h>

void fmu_put_escaped(FILE *f, const char *s)
{
    for (; *s; ++s) {
        const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
                      : *s == '"' ? "&quot;" : *s == '\'' ? "&apos;" : NULL;
        if (e) fputs(e, f);
        else fputc(*s, f);
    }
}

static void header(FILE *f, const fmu_pack *p)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"2.0\" "
          "modelName=\"", f);
    fmu_put_escaped(f, p->model_name);
    fprintf(f, "\" guid=\"%s\" description=\"mbs multibody model, ", p->guid);
    fmu_put_escaped(f, p->source_name);
    fputs("\" generationTool=\"mbs-fmu\" variableNamingConvention=\"structured\" "
          "numberOfEventIndicators=\"0\">\n", f);
    fprintf(f, "  <CoSimulation modelIdentifier=\"%s\" canHandleVariableCommunicationStepSize="
               "\"true\" canInterpolateInputs=\"false\" maxOutputDerivativeOrder=\"0\" "
               "canRunAsynchronuously=\"false\" canBeInstantiatedOnlyOncePerProcess=\"false\" "
               "canNotUseMemoryManagementFunctions=\"true\" canGetAndSetFMUstate=\"false\" "
               "canSerializeFMUstate=\"false\" providesDirectionalDerivative=\"false\"/>\n",
            p->identifier);
    fputs("  <LogCategories>\n    <Category name=\"logStatusError\"/>\n"
          "    <Category name=\"logAll\"/>\n  </LogCategories>\n", f);
    fputs("  <DefaultExperiment startTime=\"0\" stepSize=\"0.001\"/>\n", f);
}

/* One ScalarVariable of the table. */
static void variable(FILE *f, const fmu_var *v, int vr)
{
    fputs("    <ScalarVariable name=\"", f);
    fmu_put_escaped(f, v->name);
    fprintf(f, "\" valueReference=\"%d\" causality=\"%s\"", vr, fmu_var_causality(v->kind));
    if (v->kind == FMU_STEP_SIZE)
        fputs(" variability=\"fixed\" initial=\"exact\">\n      <Real start=\"0.001\"/>\n", f);
    else if (v->kind == FMU_USE_CVODE)
        fputs(" variability=\"fixed\" initial=\"exact\">\n      <Boolean start=\"false\"/>\n", f);
    else if (v->kind == FMU_MAX_WORK)
        fputs(" variability=\"fixed\" initial=\"exact\">\n      <Integer start=\"0\"/>\n", f);
    else if (!strcmp(fmu_var_causality(v->kind), "input")) /* joint forces, wrenches */
        fputs(" variability=\"continuous\">\n      <Real start=\"0\"/>\n", f);
    else
        fprintf(f, " variability=\"continuous\" initial=\"calculated\">\n      <Real/>\n");
    fputs("    </ScalarVariable>\n", f);
}

int fmu_write_description(FILE *f, const fmu_pack *p, const fmu_vars *vars)
{
    header(f, p);
    fputs("  <ModelVariables>\n", f);
    for (int i = 0; i < vars->n; ++i) variable(f, &vars->v[i], i);
    fputs("  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n", f);
    for (int i = 0; i < vars->n; ++i) /* indices are 1-based positions in ModelVariables */
        if (!strcmp(fmu_var_causality(vars->v[i].kind), "output"))
            fprintf(f, "      <Unknown index=\"%d\" dependencies=\"\"/>\n", i + 1);
    fputs("    </Outputs>\n    <InitialUnknowns>\n", f);
    for (int i = 0; i < vars->n; ++i)
        if (!strcmp(fmu_var_causality(vars->v[i].kind), "output"))
            fprintf(f, "      <Unknown index=\"%d\"/>\n", i + 1);
    fputs("    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n", f);
    return ferror(f) ? -1 : 0;
}
