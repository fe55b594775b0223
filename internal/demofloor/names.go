package demofloor

// Name pools for the agents the generator invents. The first names of the
// planted traps (Maria, Jamal, José, Priya, Noah, Tom) are left out so that
// the traps stay exactly as planted.
var firstNames = []string{
	"Aaliyah", "Adrian", "Aisha", "Alan", "Alicia", "Amir", "Ana", "Andre", "Angela", "Ben",
	"Bianca", "Brandon", "Brianna", "Caleb", "Camila", "Carlos", "Carmen", "Chen", "Chris", "Dana",
	"Darius", "Deja", "Derek", "Diana", "Elena", "Eli", "Emily", "Eric", "Fatima", "Felix",
	"Grace", "Hana", "Hector", "Imani", "Isaac", "Ivy", "Jada", "Jason", "Jenna", "Jordan",
	"Kara", "Keisha", "Kevin", "Kim", "Lena", "Leo", "Liam", "Lucia", "Malik", "Marcus",
	"Mei", "Mia", "Nadia", "Nina", "Omar", "Paula", "Rafael", "Rosa", "Ryan", "Sara",
	"Sean", "Sofia", "Tariq", "Tessa", "Tyler", "Uma", "Victor", "Wendy", "Xavier", "Yara",
	"Yusuf", "Zara",
}

var lastNames = []string{
	"Abbott", "Adams", "Alvarez", "Bailey", "Baker", "Banks", "Bell", "Brooks", "Bryant", "Campbell",
	"Castillo", "Chavez", "Coleman", "Cruz", "Diaz", "Dixon", "Edwards", "Ellis", "Evans", "Fisher",
	"Flores", "Foster", "Garcia", "Gibson", "Gomez", "Graham", "Greene", "Hall", "Hayes", "Henderson",
	"Hughes", "Jenkins", "Jordan", "Kelly", "Kim", "Long", "Marshall", "Mendoza", "Meyer", "Moore",
	"Morales", "Murphy", "Myers", "Nguyen", "Ortiz", "Owens", "Patel", "Perry", "Powell", "Price",
	"Ramos", "Reyes", "Rivera", "Roberts", "Ross", "Russell", "Sanders", "Shaw", "Simmons", "Stewart",
	"Sullivan", "Torres", "Tran", "Turner", "Vargas", "Wagner", "Wallace", "Ward", "Watson", "Woods",
	"Young", "Zhang",
}
