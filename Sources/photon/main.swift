import PhotonCLI
