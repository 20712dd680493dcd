// OWL 2 DL check for doxa's ontology: the OWL 2 DL profile (OWLAPI's OWL2DLProfile), then
// consistency and unsatisfiable classes under the HermiT reasoner. Both come in the HermiT.jar
// that the PyPI package owlready2 ships, so this runs offline with any JDK 11+:
//
//   java -cp HermiT.jar tests/owl/DLCheck.java ontology/doxa.ttl -- ontology/doxa.ttl examples/domain.ttl
//
// Each group of files (separated by "--") is merged into one ontology and checked on its own.
// Output, one line each: "GROUP profile: <violation>", "GROUP inconsistent",
// "GROUP unsatisfiable: <class IRI>", "GROUP reasoner: <why HermiT refused the ontology>",
// and finally "GROUP checked <n> axioms".
// Exit code 1 when any group has a problem.
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.semanticweb.HermiT.Reasoner;
import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.model.IRI;
import org.semanticweb.owlapi.model.OWLClass;
import org.semanticweb.owlapi.model.OWLOntology;
import org.semanticweb.owlapi.model.OWLOntologyManager;
import org.semanticweb.owlapi.profiles.OWL2DLProfile;
import org.semanticweb.owlapi.profiles.OWLProfileViolation;

public class DLCheck {
    public static void main(String[] args) throws Exception {
        List<List<String>> groups = new ArrayList<>();
        groups.add(new ArrayList<>());
        for (String arg : args) {
            if (arg.equals("--")) {
                groups.add(new ArrayList<>());
            } else {
                groups.get(groups.size() - 1).add(arg);
            }
        }
        boolean clean = true;
        for (int index = 0; index < groups.size(); index++) {
            clean &= check(index, groups.get(index));
        }
        System.exit(clean ? 0 : 1);
    }

    static boolean check(int group, List<String> paths) throws Exception {
        OWLOntologyManager manager = OWLManager.createOWLOntologyManager();
        OWLOntology merged = manager.createOntology(IRI.create("urn:doxa:dl-check:" + group));
        boolean clean = true;
        for (String path : paths) {
            OWLOntology one = manager.loadOntologyFromOntologyDocument(new File(path));
            manager.addAxioms(merged, one.getAxioms());
            // each document on its own too: its header, and its own declarations
            clean &= profile(group, path, one);
        }
        clean &= profile(group, "merged", merged);
        Reasoner reasoner;
        try {
            reasoner = new Reasoner(merged);
        } catch (RuntimeException e) {
            // e.g. a datatype outside the OWL 2 datatype map, such as xsd:gYear
            System.out.println(group + " reasoner: " + e.getMessage().replace('\n', ' '));
            System.out.println(group + " checked " + merged.getAxiomCount() + " axioms");
            return false;
        }
        if (!reasoner.isConsistent()) {
            System.out.println(group + " inconsistent");
            clean = false;
        } else {
            for (OWLClass c : reasoner.getUnsatisfiableClasses().getEntitiesMinusBottom()) {
                System.out.println(group + " unsatisfiable: " + c.getIRI());
                clean = false;
            }
        }
        reasoner.dispose();
        System.out.println(group + " checked " + merged.getAxiomCount() + " axioms");
        return clean;
    }

    static boolean profile(int group, String where, OWLOntology ontology) {
        boolean clean = true;
        for (OWLProfileViolation v : new OWL2DLProfile().checkOntology(ontology).getViolations()) {
            System.out.println(group + " profile: " + where + ": " + v.toString().replace('\n', ' '));
            clean = false;
        }
        return clean;
    }
}
